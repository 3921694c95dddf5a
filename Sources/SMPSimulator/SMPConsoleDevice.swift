import SMP
public import SerialSimulator

/// A ``SimulatedSMPDevice`` behind Zephyr's SMP console transport (`smp_uart.c`, `serial_util.c`): what
/// `nrfloader simulate-serial --protocol smp` serves on a pseudo-terminal.
///
/// Requests arrive in console framing (``SMPSerialFraming``); answers go out laid out as `mcumgr_serial_tx_pkt`
/// lays them out. As Zephyr does, it drops without answering a line longer than 127 bytes and a packet (length field,
/// frame and CRC) larger than its SMP buffer (384 bytes: `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`), so the largest
/// frame is 380 bytes (``SMPSerialFraming/largestFrame(bufferSize:)``). A reset answers, waits 250 ms
/// (`CONFIG_MCUMGR_GRP_OS_RESET_MS`), reboots, and prints a boot banner on the console, as a log line between
/// packets. An activation is a boot that swapped a new image in.
public struct SMPConsoleDevice: SerialLineModel {
    /// The device.
    public private(set) var device: SimulatedSMPDevice
    /// The SMP buffer: the largest packet (length field, frame and CRC) accepted.
    public let bufferSize: Int
    public private(set) var transcript: [String] = []
    public private(set) var firstFrameTime: Duration?
    public private(set) var lastActivationTime: Duration?
    public private(set) var hostBytes = 0
    private var decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
    private var resetAt: Duration?

    /// Creates the console.
    ///
    /// - Parameters:
    ///   - device: The SMP device.
    ///   - bufferSize: Its SMP buffer (`buf_size`): the largest packet, length field and CRC included.
    public init(device: SimulatedSMPDevice, bufferSize: Int = 384) {
        self.device = device
        self.bufferSize = bufferSize
    }

    public var activations: Int { device.swapCount }
    public var nextEventTime: Duration? { resetAt }

    public mutating func receive(_ bytes: [UInt8], at time: Duration) -> SerialBootloader.Output {
        hostBytes += bytes.count
        if firstFrameTime == nil { firstFrameTime = time }
        var output = SerialBootloader.Output()
        for event in decoder.receive(bytes) {
            switch event {
            case .frame(let frame):
                transcript.append("> " + hexString(frame))
                guard frame.count <= SMPSerialFraming.largestFrame(bufferSize: bufferSize) else {
                    transcript.append(
                        "# dropped: frame of \(frame.count) bytes and its \(SMPSerialFraming.packetOverhead) bytes of "
                            + "length and CRC exceed the \(bufferSize)-byte buffer")
                    continue
                }
                // A resetting device hears nothing.
                guard resetAt == nil else { continue }
                let answer = device.receive(frame)
                if let bytes = answer.answer {
                    transcript.append("< " + hexString(bytes))
                    output.bytes += SMPSerialFraming.lines(for: bytes).joined()
                }
                if answer.resetsAfterAnswer { resetAt = time + .milliseconds(250) }
            case .consoleLine(let line):
                // The shell echoes what it does not understand; the tests only need it not to be SMP.
                transcript.append("# console: \(line.count) bytes")
            case .discarded(let reason):
                transcript.append("# dropped: \(reason)")
            }
        }
        return output
    }

    public mutating func advance(to time: Duration) -> SerialBootloader.Output {
        guard let due = resetAt, time >= due else { return SerialBootloader.Output() }
        resetAt = nil
        let swaps = device.swapCount
        device.reboot()
        if device.swapCount > swaps { lastActivationTime = time }
        transcript.append("# reset: " + (device.log.last ?? "boot"))
        decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
        return SerialBootloader.Output(bytes: Array("*** Booting Zephyr OS (simulated SMP server) ***\r\n".utf8))
    }

    public mutating func lineReset(_ note: String) {
        transcript.append("# \(note)")
        decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
    }
}

/// Bytes as lowercase hex without separators, for transcripts.
private func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

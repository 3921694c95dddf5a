import DeviceLink
import SMP
package import SerialSimulator

/// A ``SimulatedSMPDevice`` behind Zephyr's SMP console transport (`smp_uart.c`, `serial_util.c`): what
/// `nrfloader simulate-serial --protocol smp` serves on a pseudo-terminal.
///
/// Requests arrive in console framing (`SMPSerialFraming`); answers go out laid out as `mcumgr_serial_tx_pkt`
/// lays them out. As Zephyr does, it drops without answering a line longer than 127 bytes and a packet (length field,
/// frame and CRC) larger than its SMP buffer (384 bytes: `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`), so the largest
/// frame is 380 bytes (`SMPSerialFraming.largestFrame(bufferSize:)`). A reset answers, waits 250 ms
/// (`CONFIG_MCUMGR_GRP_OS_RESET_MS`), reboots, and prints a boot banner on the console, as a log line between
/// packets. An activation is a boot that swapped a new image in.
///
/// The device's ``SMPMisbehaviour`` reaches the line too: ``SMPMisbehaviour/drip`` holds the answers back and lets
/// them out one byte a second, ``SMPMisbehaviour/garbage`` puts noise on the line before each answer, and after a
/// ``SMPMisbehaviour/noReturn`` reset no boot banner comes.
///
/// With ``lineBuffers`` set, it also models the RX line buffers of Zephyr's console transports
/// (`CONFIG_UART_MCUMGR_RX_BUF_COUNT` in `uart_mcumgr.c`, `CONFIG_MCUMGR_TRANSPORT_SHELL_RX_BUF_COUNT` in
/// `smp_shell.c`, both 2 by default): an SMP line (one starting with `06 09` or `04 14`) takes a buffer from its first
/// byte until the SMP thread has decoded it, and a line that arrives while every buffer is taken is dropped whole
/// ("Failed to alloc SMP buf"), as is the packet it belonged to. The receive interrupt outruns the thread on a
/// pseudo-terminal or USB CDC ACM, so the thread runs only once the input has been quiet for
/// ``processingDelay``: the lines of one burst (one write of the host) all arrive before any is decoded. A host that
/// waits for each answer before its next request of at most N lines is never dropped; one that writes more lines at
/// once always is, whatever the scheduling.
package struct SMPConsoleDevice: SerialLineModel {
    /// The device.
    package private(set) var device: SimulatedSMPDevice
    /// The SMP buffer: the largest packet (length field, frame and CRC) accepted.
    package let bufferSize: Int
    package private(set) var transcript: [String] = []
    package private(set) var firstFrameTime: Duration?
    package private(set) var lastActivationTime: Duration?
    package private(set) var hostBytes = 0
    /// The RX line buffers, `nil` for a device that decodes each line as it arrives.
    package let lineBuffers: Int?
    /// How long the input must be quiet before the SMP thread decodes the lines waiting in the buffers.
    package let processingDelay: Duration
    /// SMP lines dropped because no line buffer was free.
    package private(set) var droppedLines = 0
    private var decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
    private var resetAt: Duration?
    /// Complete lines in buffers, waiting for the thread.
    private var waitingLines: [[UInt8]] = []
    /// The line being received: into a buffer, dropped (no buffer), or console text (needs none).
    private var currentLine: (bytes: [UInt8], kind: LineKind)?
    private var lastInputTime: Duration = .zero
    /// ``SMPMisbehaviour/drip``: answer bytes not sent yet, and when the next one is due.
    private var drip: (bytes: [UInt8], due: Duration) = ([], .zero)
    /// ``SMPMisbehaviour/garbage``: the noise generator, seeded so that a run repeats.
    private var noise = SplitMix64(seed: 0x5EED)

    private enum LineKind {
        case buffered
        case dropped
        case console
    }

    /// Creates the console.
    ///
    /// - Parameters:
    ///   - device: The SMP device.
    ///   - bufferSize: Its SMP buffer (`buf_size`): the largest packet, length field and CRC included.
    ///   - lineBuffers: The RX line buffers (at least 1), or `nil` to decode every line as it arrives.
    ///   - processingDelay: With line buffers, how long the input must be quiet before waiting lines are decoded.
    package init(
        device: SimulatedSMPDevice, bufferSize: Int = 384, lineBuffers: Int? = nil,
        processingDelay: Duration = .milliseconds(20)
    ) {
        precondition(lineBuffers.map { $0 >= 1 } ?? true, "a console transport has at least one line buffer")
        self.device = device
        self.bufferSize = bufferSize
        self.lineBuffers = lineBuffers
        self.processingDelay = processingDelay
    }

    package var activations: Int { device.swapCount }
    package var nextEventTime: Duration? {
        let processing = waitingLines.isEmpty ? nil : lastInputTime + processingDelay
        let dripping = drip.bytes.isEmpty ? nil : drip.due
        return [resetAt, processing, dripping].compactMap { $0 }.min()
    }

    private var misbehaviour: SMPMisbehaviour? { device.configuration.misbehaviour }

    /// What goes on the line for an answer: held back for the drip, or after noise.
    private mutating func lineOutput(for answer: [UInt8], at time: Duration) -> [UInt8] {
        let lines = Array(SMPSerialFraming.lines(for: answer).joined())
        switch misbehaviour {
        case .drip?:
            if drip.bytes.isEmpty { drip.due = time + .seconds(1) }
            drip.bytes += lines
            return []
        case .garbage?:
            return garbage() + lines
        default:
            return lines
        }
    }

    /// A burst of noise ending in a newline: binary bytes (no newline among them), then a line that starts like an
    /// SMP packet and is not base64.
    private mutating func garbage() -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<24 {
            let byte = UInt8(truncatingIfNeeded: noise.next())
            bytes.append(byte == 0x0A ? 0x0B : byte)
        }
        transcript.append("# noise: \(bytes.count + 12) bytes (misbehaving)")
        return bytes + [0x0D, 0x0A] + SMPSerialFraming.packetMarker + Array("!!noise!".utf8) + [0x0A]
    }

    /// The drip: one held-back byte a second.
    private mutating func dripped(at time: Duration) -> [UInt8] {
        var bytes: [UInt8] = []
        while !drip.bytes.isEmpty, time >= drip.due {
            bytes.append(drip.bytes.removeFirst())
            drip.due += .seconds(1)
        }
        return bytes
    }

    package mutating func receive(_ bytes: [UInt8], at time: Duration) -> SerialBootloader.Output {
        hostBytes += bytes.count
        if firstFrameTime == nil { firstFrameTime = time }
        guard let lineBuffers else { return decode(bytes, at: time) }
        // The thread ran in the quiet before these bytes.
        var output = processWaitingLines(at: time)
        lastInputTime = time
        for byte in bytes {
            var line = currentLine ?? ([], .console)
            if currentLine == nil {
                let isSMP = byte == SMPSerialFraming.packetMarker[0] || byte == SMPSerialFraming.fragmentMarker[0]
                let held = waitingLines.count
                line.kind = !isSMP ? .console : held < lineBuffers ? .buffered : .dropped
            }
            line.bytes.append(byte)
            currentLine = line
            guard byte == 0x0A else { continue }
            currentLine = nil
            switch line.kind {
            case .buffered: waitingLines.append(line.bytes)
            case .console: output.bytes += decode(line.bytes, at: time).bytes
            case .dropped:
                droppedLines += 1
                transcript.append(
                    "# dropped: SMP line of \(line.bytes.count) bytes, no free line buffer (\(lineBuffers) held)")
            }
        }
        return output
    }

    /// The SMP thread: decodes the lines waiting in the buffers once the input has been quiet long enough, freeing
    /// them.
    private mutating func processWaitingLines(at time: Duration) -> SerialBootloader.Output {
        guard !waitingLines.isEmpty, time >= lastInputTime + processingDelay else { return SerialBootloader.Output() }
        let lines = waitingLines
        waitingLines = []
        return decode(Array(lines.joined()), at: time)
    }

    /// Decodes console bytes and answers the frames they complete.
    private mutating func decode(_ bytes: [UInt8], at time: Duration) -> SerialBootloader.Output {
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
                    output.bytes += lineOutput(for: bytes, at: time)
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

    package mutating func advance(to time: Duration) -> SerialBootloader.Output {
        var processed = processWaitingLines(at: time)
        processed.bytes += dripped(at: time)
        guard let due = resetAt, time >= due else { return processed }
        resetAt = nil
        let swaps = device.swapCount
        device.reboot()
        if device.swapCount > swaps { lastActivationTime = time }
        transcript.append("# reset: " + (device.log.last ?? "boot"))
        decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
        waitingLines = []
        currentLine = nil
        drip.bytes = []
        if device.isGone { return processed }
        return SerialBootloader.Output(
            bytes: processed.bytes + Array("*** Booting Zephyr OS (simulated SMP server) ***\r\n".utf8))
    }

    package mutating func lineReset(_ note: String) {
        transcript.append("# \(note)")
        decoder = SMPSerialDecoder(maximumLineLength: SMPSerialFraming.maximumLineLength)
        waitingLines = []
        currentLine = nil
    }
}

/// Bytes as lowercase hex without separators, for transcripts.
private func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

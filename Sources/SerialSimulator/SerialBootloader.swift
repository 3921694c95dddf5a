package import DFUSimulator
import SerialDFU

/// A Secure DFU bootloader behind the SDK 15 serial transport, as a sans-IO state machine: SLIP bytes in, SLIP
/// bytes out, in virtual time.
///
/// The DFU logic is `SimulatedDevice`'s (the in-process Secure bootloader, used through its public API). This
/// layer adds what the serial transport does itself: SLIP, Ping (`09`), Get MTU (`07`), protocol version (`00`),
/// Write Object (`08`) frames that become packet writes, and responses sent as frames; plus the line faults.
package struct SerialBootloader: SerialBootloaderModel {
    /// Faults that belong to the line, not to the DFU logic.
    package struct LineFaults: Sendable, Equatable {
        /// Never answer anything (a device that is not in bootloader mode).
        package var isMute = false
        /// Send noise, a bad SLIP escape and a frame that is no response before every response.
        package var sendsGarbage = false
        /// Vanish (USB unplugged) after this many Write Object frames.
        package var vanishAfterWrites: Int?

        /// No faults.
        package init() {}
    }

    /// What one input produced.
    package struct Output: Sendable, Equatable {
        /// Bytes to send on the line.
        package var bytes: [UInt8] = []
        /// The port must disappear now.
        package var vanishes = false

        /// Creates an output (models outside this module, such as the SMP console, build their own).
        ///
        /// - Parameters:
        ///   - bytes: Bytes to send.
        ///   - vanishes: Whether the port disappears.
        package init(bytes: [UInt8] = [], vanishes: Bool = false) {
            self.bytes = bytes
            self.vanishes = vanishes
        }
    }

    /// The DFU device behind the line.
    package private(set) var device: SimulatedDevice
    /// The Get MTU answer: the SLIP buffer size (131 as the SDK's UART transport).
    package let mtu: Int
    /// Line faults.
    package let faults: LineFaults
    /// Every frame in order, `> hex` from the host and `< hex` from the device.
    package private(set) var transcript: [String] = []
    /// How many times the device activated an image.
    package private(set) var activations = 0
    /// When the first frame arrived, and when the last activation happened (for throughput figures).
    package private(set) var firstFrameTime: Duration?
    /// When the device last activated an image.
    package private(set) var lastActivationTime: Duration?
    /// Wire bytes received from the host.
    package private(set) var hostBytes = 0
    private var decoder = SLIPDecoder()
    private var writes = 0
    private var vanished = false
    private var lastActivated: [[UInt8]?] = FirmwareType.allCases.map { _ in nil }

    /// Creates a bootloader around `device` (a Secure DFU one).
    package init(device: SimulatedDevice, mtu: Int = 131, faults: LineFaults = LineFaults()) {
        self.device = device
        self.mtu = mtu
        self.faults = faults
    }

    /// When held-back device output is due.
    package var nextEventTime: Duration? { device.nextEventTime }

    /// Bytes arrived from the host.
    package mutating func receive(_ bytes: [UInt8], at time: Duration) -> Output {
        var output = Output()
        output.bytes = translate(device.advance(to: time))
        hostBytes += bytes.count
        if firstFrameTime == nil { firstFrameTime = time }
        guard !vanished else { return output }
        for frame in decoder.feed(bytes) {
            transcript.append("> " + hexLine(frame))
            guard !faults.isMute else { continue }
            handle(frame, at: time, into: &output)
            if vanished {
                output.vanishes = true
                break
            }
        }
        return output
    }

    /// Lets time pass; returns what the device sends meanwhile.
    package mutating func advance(to time: Duration) -> Output {
        Output(bytes: translate(device.advance(to: time)))
    }

    /// The device reset: a half-received frame is gone.
    package mutating func lineReset(_ note: String) {
        decoder = SLIPDecoder()
        transcript.append("# " + note)
    }

    private mutating func handle(_ frame: [UInt8], at time: Duration, into output: inout Output) {
        guard let opcode = frame.first else { return }
        // A device that reset comes back up as the serial line is used again.
        if !device.isConnected {
            guard device.advertisement != nil else { return }
            output.bytes += translate(device.connect(mtu: 247, at: time))
            output.bytes += translate(device.enableNotifications(role: .secureControlPoint, at: time))
        }
        switch opcode {
        case 0x09 where frame.count == 2:
            output.bytes += respond([0x60, 0x09, 0x01, frame[1]])
        case 0x07:
            output.bytes += respond([0x60, 0x07, 0x01, UInt8(mtu & 0xFF), UInt8(mtu >> 8)])
        case 0x00:
            output.bytes += respond([0x60, 0x00, 0x01, 0x01])
        case 0x08:
            writes += 1
            if let limit = faults.vanishAfterWrites, writes >= limit {
                vanished = true
                return
            }
            output.bytes += translate(
                device.write(role: .securePacket, bytes: Array(frame.dropFirst()), withResponse: false, at: time))
        default:
            output.bytes += translate(
                device.write(role: .secureControlPoint, bytes: frame, withResponse: true, at: time))
        }
    }

    private mutating func translate(_ events: [SimulatorEvent]) -> [UInt8] {
        var bytes: [UInt8] = []
        for event in events {
            switch event.output {
            case .notification(_, let value): bytes += respond(value)
            case .rebooted:
                let images = FirmwareType.allCases.map { device.activatedImage($0) }
                if images != lastActivated {
                    activations += 1
                    lastActivationTime = event.time
                }
                lastActivated = images
            default: continue
            }
        }
        return bytes
    }

    private mutating func respond(_ frame: [UInt8]) -> [UInt8] {
        transcript.append("< " + hexLine(frame))
        let garbage: [UInt8] = faults.sendsGarbage ? [0x55, 0xAA, 0xC0, 0x01, 0xDB, 0x99, 0xC0, 0x42, 0x43, 0xC0] : []
        return garbage + SLIP.encode(frame)
    }
}

func hexLine(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}

/// A simulated DFU bootloader behind a serial line: a ``SerialLineModel`` with the DFU device behind it.
package protocol SerialBootloaderModel: SerialLineModel {
    /// The DFU device behind the line.
    var device: SimulatedDevice { get }
}

/// A simulated device behind a serial line: what ``PseudoTerminalBootloader`` serves (a DFU bootloader, or the SMP
/// console of issue 20).
package protocol SerialLineModel: Sendable {
    /// When held-back device output is due.
    var nextEventTime: Duration? { get }
    /// Every frame so far, one line each.
    var transcript: [String] { get }
    /// How many times the device activated an image.
    var activations: Int { get }
    /// When the first bytes arrived.
    var firstFrameTime: Duration? { get }
    /// When the device last activated an image.
    var lastActivationTime: Duration? { get }
    /// Wire bytes received from the host.
    var hostBytes: Int { get }
    /// Bytes arrived from the host at `time`; returns what to send back.
    mutating func receive(_ bytes: [UInt8], at time: Duration) -> SerialBootloader.Output
    /// Time passes; returns what the device sends meanwhile.
    mutating func advance(to time: Duration) -> SerialBootloader.Output
    /// The device reset and its port came back (`note` says how, for the transcript): the line starts afresh.
    mutating func lineReset(_ note: String)
}

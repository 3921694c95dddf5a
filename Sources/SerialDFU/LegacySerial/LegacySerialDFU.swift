package import DFUController

/// Legacy DFU over the three-wire UART transport (SDK ≤ 11 serial bootloaders, Adafruit's nRF52 bootloader), as a
/// sans-IO state machine: it says what to send and how long to wait; the caller feeds back decoded SLIP frames and
/// expired timers.
///
/// Per part: Start (type 3: mode and the three sizes), a pause while the device erases, Init (type 1: the init
/// packet and two zero bytes), Data (type 4, 512 image bytes each, a pause per 4 KiB page), Stop (type 5). Every
/// packet must be acknowledged with the next sequence number; a missing or wrong acknowledgement resends the same
/// packet, up to ``Configuration/attempts`` times. Sequence numbers start at 1, as adafruit-nrfutil's do.
package struct LegacySerialDFU: Sendable {
    /// Timings and limits.
    package struct Configuration: Sendable, Equatable {
        /// How long to wait for each acknowledgement.
        package var acknowledgementTimeout: Duration = .seconds(1)
        /// Sends of one packet before the update fails.
        package var attempts = 3
        /// Image bytes per data packet (the bootloaders' limit is 512).
        package var dataPacketSize = 512
        /// Page erase time the pause after Start is computed from (nRF52: 89.7 ms, Adafruit's value).
        package var pageEraseTime: Duration = .microseconds(89_700)
        /// The pause after each 4 KiB of data (1024 words at 100 µs, Adafruit's value).
        package var pageWriteTime: Duration = .microseconds(102_400)
        /// The pause after Stop, while the device checks and activates the image.
        package var activationTime: Duration = .seconds(1)

        /// The defaults.
        package init() {}
    }

    /// What the caller must do.
    package enum Action: Sendable, Equatable {
        /// Write these bytes to the line.
        case send([UInt8])
        /// Expect an acknowledgement until this much time has passed; then call ``timerFired()``.
        case awaitAcknowledgement(Duration)
        /// Wait this long, then call ``timerFired()``.
        case pause(Duration)
        /// Bytes of the current part acknowledged so far.
        case progress(part: Int, sent: Int, total: Int)
        /// A part was acknowledged to its Stop packet.
        case partSent(part: Int, bytes: Int)
        /// Every part was sent and acknowledged.
        case finished
        /// The update failed.
        case failed(LegacySerialError)
    }

    private enum Stage: Sendable, Equatable {
        case idle
        case awaitingAcknowledgement(packet: Int, attempt: Int)
        case pausing(nextPacket: Int)
        case done
    }

    private let parts: [DFUFirmware.Part]
    private let configuration: Configuration
    private var partIndex = 0
    private var packets: [[UInt8]] = []
    private var sequence: UInt8 = 0
    private var stage = Stage.idle
    private var hasBeenAcknowledged = false

    /// Creates the machine for legacy parts (their init packets are the legacy ones).
    package init(parts: [DFUFirmware.Part], configuration: Configuration = Configuration()) {
        self.parts = parts
        self.configuration = configuration
    }

    /// The payloads of one part's packets, in order.
    package static func payloads(of part: DFUFirmware.Part, dataPacketSize: Int = 512) -> [[UInt8]] {
        func word(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let sizes: (Int, Int, Int) =
            switch part.imageType {
            case .softDevice: (part.image.count, 0, 0)
            case .bootloader: (0, part.image.count, 0)
            case .softDeviceAndBootloader(let softDevice, let bootloader): (softDevice, bootloader, 0)
            case .application: (0, 0, part.image.count)
            }
        let mode: Int =
            switch part.imageType {
            case .softDevice: 1
            case .bootloader: 2
            case .softDeviceAndBootloader: 3
            case .application: 4
            }
        var payloads = [word(3) + word(mode) + word(sizes.0) + word(sizes.1) + word(sizes.2)]
        payloads.append(word(1) + part.initPacket + [0, 0])
        var offset = 0
        while offset < part.image.count {
            payloads.append(word(4) + part.image[offset..<min(part.image.count, offset + dataPacketSize)])
            offset += dataPacketSize
        }
        payloads.append(word(5))
        return payloads
    }

    /// Begins the first part.
    package mutating func start() -> [Action] {
        guard !parts.isEmpty else { return [.failed(.noParts)] }
        return beginPart()
    }

    /// Whether the machine waits for the acknowledgement of a later part's Start packet: the device may still be
    /// resetting from the part before, and its port may vanish and come back.
    package var isAwaitingLaterStart: Bool {
        guard partIndex > 0, case .awaitingAcknowledgement(packet: 0, _) = stage else { return false }
        return true
    }

    /// Sends that Start packet again as a first attempt, to the port the device came back on.
    package mutating func resendStart() -> [Action] {
        guard isAwaitingLaterStart else { return [] }
        return send(0, attempt: 1)
    }

    /// A SLIP frame arrived from the device.
    package mutating func receive(frame: [UInt8]) -> [Action] {
        guard case .awaitingAcknowledgement(let index, let attempt) = stage else { return [] }
        // Noise and damaged packets are not acknowledgements; the timer still runs.
        guard let packet = HCIPacket(frame: frame), packet.type == HCIPacket.acknowledgementType else { return [] }
        guard packet.acknowledgement == (sequence + 2) & 7 else {
            return resend(index, after: attempt, because: "acknowledgement \(packet.acknowledgement)")
        }
        sequence = (sequence + 1) & 7
        hasBeenAcknowledged = true
        return acknowledged(index)
    }

    /// The acknowledgement timer or a pause ended.
    package mutating func timerFired() -> [Action] {
        switch stage {
        case .awaitingAcknowledgement(let index, let attempt):
            return resend(index, after: attempt, because: "no acknowledgement")
        case .pausing(let next):
            if next == packets.count { return nextPart() }
            return send(next, attempt: 1)
        case .idle, .done:
            return []
        }
    }

    private mutating func beginPart() -> [Action] {
        packets = Self.payloads(of: parts[partIndex], dataPacketSize: configuration.dataPacketSize)
        return [.progress(part: partIndex + 1, sent: 0, total: parts[partIndex].image.count)] + send(0, attempt: 1)
    }

    private mutating func send(_ index: Int, attempt: Int) -> [Action] {
        stage = .awaitingAcknowledgement(packet: index, attempt: attempt)
        let wire = HCIPacket(sequence: (sequence + 1) & 7, payload: packets[index]).wire
        return [.send(wire), .awaitAcknowledgement(configuration.acknowledgementTimeout)]
    }

    private mutating func resend(_ index: Int, after attempt: Int, because reason: String) -> [Action] {
        guard attempt < configuration.attempts else {
            stage = .done
            guard hasBeenAcknowledged else { return [.failed(.noAnswer(attempts: attempt))] }
            return [.failed(.unacknowledged(packet: packetName(index), attempts: attempt, reason: reason))]
        }
        return send(index, attempt: attempt + 1)
    }

    private mutating func acknowledged(_ index: Int) -> [Action] {
        let part = parts[partIndex]
        let last = packets.count - 1
        var actions: [Action] = []
        if index >= 2 && index < last {
            let sent = min(part.image.count, (index - 1) * configuration.dataPacketSize)
            actions.append(.progress(part: partIndex + 1, sent: sent, total: part.image.count))
        }
        let pause: Duration
        switch index {
        case 0:
            // The device erases what the sizes cover before it listens again (Adafruit's estimate).
            let total = part.image.count
            pause = max(.milliseconds(500), configuration.pageEraseTime * (total / 4096 + 1))
        case last:
            actions.append(.partSent(part: partIndex + 1, bytes: part.image.count))
            pause = configuration.activationTime
        case let data where data >= 2 && ((data - 1) % 8 == 0 || data == last - 1):
            pause = configuration.pageWriteTime
        default:
            pause = .zero
        }
        guard pause > .zero else { return actions + send(index + 1, attempt: 1) }
        stage = .pausing(nextPacket: index + 1)
        return actions + [.pause(pause)]
    }

    private mutating func nextPart() -> [Action] {
        partIndex += 1
        guard partIndex < parts.count else {
            stage = .done
            return [.finished]
        }
        return beginPart()
    }

    private func packetName(_ index: Int) -> String {
        switch index {
        case 0: "start"
        case 1: "init"
        case packets.count - 1: "stop"
        default: "data \(index - 1) of \(packets.count - 3)"
        }
    }
}

/// Why a legacy serial update failed.
package enum LegacySerialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing to send.
    case noParts
    /// The device acknowledged nothing at all: not in bootloader mode, or not there.
    case noAnswer(attempts: Int)
    /// The device stopped acknowledging a packet.
    case unacknowledged(packet: String, attempts: Int, reason: String)

    package var description: String {
        switch self {
        case .noParts: "the input has no legacy dfu part"
        case .noAnswer(let attempts):
            "the device acknowledged none of \(attempts) start packets: is it in bootloader mode? (Adafruit boards: "
                + "a touch at 1200 baud (SerialPortOptions.touchBaudRate) or double-tap reset)"
        case .unacknowledged(let packet, let attempts, let reason):
            "the device did not acknowledge the \(packet) packet after \(attempts) attempts (\(reason))"
        }
    }
}

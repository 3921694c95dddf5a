package import DFUSimulator
import SerialDFU

/// An SDK 11 (or Adafruit) legacy DFU bootloader behind the three-wire UART transport, sans-IO: HCI packets in,
/// acknowledgements out, in virtual time.
///
/// The DFU logic is `SimulatedDevice`'s legacy bootloader, driven the way the SDK's serial transport drives its
/// DFU core: Start becomes Start DFU with the image sizes, Init the init packet between its two control writes,
/// Data the packet writes of a firmware image, Stop validation and activation. Acknowledgements are the link's
/// own: a packet with a good header checksum and CRC is acknowledged with its sequence number + 1; a repeated
/// sequence number is acknowledged again but not delivered twice; a damaged packet gets nothing.
package struct LegacySerialBootloader: SerialBootloaderModel {
    /// Line faults.
    package struct LineFaults: Sendable, Equatable {
        /// Never acknowledge anything.
        package var isMute = false
        /// Swallow the acknowledgement of these packets (1-based, counting accepted packets), once each.
        package var droppedAcknowledgements: Set<Int> = []
        /// Vanish after this many data packets.
        package var vanishAfterData: Int?

        /// No faults.
        package init() {}
    }

    /// The device behind the line.
    package private(set) var device: SimulatedDevice
    /// Every packet: `> hex` for the host's HCI packets (unframed), `< hex` for acknowledgements, `# …` notes.
    package private(set) var transcript: [String] = []
    /// How many times the device activated an image.
    package private(set) var activations = 0
    /// When the first frame arrived, and when the last activation happened (for throughput figures).
    package private(set) var firstFrameTime: Duration?
    /// When the device last activated an image.
    package private(set) var lastActivationTime: Duration?
    /// Wire bytes received from the host.
    package private(set) var hostBytes = 0
    private let faults: LineFaults
    private var decoder = SLIPDecoder()
    private var lastSequence: UInt8?
    private var accepted = 0
    private var dataPackets = 0
    private var now = Duration.zero
    private var receivingImage = false
    private var vanished = false
    private var lastActivated: [[UInt8]?] = FirmwareType.allCases.map { _ in nil }

    /// Creates a bootloader around `device` (a legacy one).
    package init(device: SimulatedDevice, faults: LineFaults = LineFaults()) {
        self.device = device
        self.faults = faults
    }

    /// When held-back device output is due.
    package var nextEventTime: Duration? { device.nextEventTime }

    /// Bytes arrived from the host.
    package mutating func receive(_ bytes: [UInt8], at time: Duration) -> SerialBootloader.Output {
        var output = advance(to: time)
        hostBytes += bytes.count
        if firstFrameTime == nil { firstFrameTime = time }
        guard !vanished else { return output }
        for frame in decoder.feed(bytes) {
            guard let packet = HCIPacket(frame: frame) else {
                transcript.append("# dropped damaged packet " + hexLine(frame))
                continue
            }
            transcript.append("> " + hexLine(frame))
            guard !faults.isMute else { continue }
            let isRepeat = packet.sequence == lastSequence
            if !isRepeat {
                lastSequence = packet.sequence
                accepted += 1
                if deliver(packet.payload) {
                    vanished = true
                    output.vanishes = true
                    return output
                }
            }
            if !isRepeat && faults.droppedAcknowledgements.contains(accepted) {
                transcript.append("# acknowledgement of packet \(accepted) dropped (fault)")
                continue
            }
            let acknowledgement = HCIPacket(acknowledging: packet.sequence + 1)
            transcript.append("< " + hexLine(acknowledgement.unframed))
            output.bytes += acknowledgement.wire
        }
        return output
    }

    /// Lets time pass.
    package mutating func advance(to time: Duration) -> SerialBootloader.Output {
        now = max(now, time)
        note(device.advance(to: now))
        return SerialBootloader.Output()
    }

    /// The device reset: a half-received frame is gone, and the link layer forgets the last sequence number.
    package mutating func lineReset(_ note: String) {
        decoder = SLIPDecoder()
        lastSequence = nil
        transcript.append("# " + note)
    }

    /// Hands a payload to the DFU core; returns whether the port must vanish now.
    private mutating func deliver(_ payload: [UInt8]) -> Bool {
        guard payload.count >= 4 else { return false }
        let type = payload[0]
        let body = Array(payload.dropFirst(4))
        if !device.isConnected, device.advertisement != nil {
            note(device.connect(mtu: 23, at: now))
            note(device.enableNotifications(role: .legacyControlPoint, at: now))
        }
        switch type {
        case 3 where body.count >= 16:
            receivingImage = false
            control([0x01, body[0]])
            packets(Array(body[4..<16]))
        case 1:
            control([0x02, 0x00])
            // The serial transport pads the init packet to whole words; the DFU core reads its fields from the start.
            packets(Array(body.dropLast(2)))
            control([0x02, 0x01])
        case 4:
            dataPackets += 1
            if let limit = faults.vanishAfterData, dataPackets >= limit { return true }
            if !receivingImage {
                receivingImage = true
                control([0x03])
            }
            packets(body)
        case 5:
            control([0x04])
            control([0x05])
        default:
            transcript.append("# unknown packet type \(type)")
        }
        return false
    }

    private mutating func control(_ bytes: [UInt8]) {
        note(device.write(role: .legacyControlPoint, bytes: bytes, withResponse: true, at: now))
    }

    private mutating func packets(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + 20)])
            note(device.write(role: .legacyPacket, bytes: chunk, withResponse: false, at: now))
            offset += 20
        }
    }

    private mutating func note(_ events: [SimulatorEvent]) {
        for event in events {
            switch event.output {
            case .notification(_, let value): transcript.append("# device notifies " + hexLine(value))
            case .writeFailed(_, let failure): transcript.append("# write failed: \(failure)")
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
    }
}

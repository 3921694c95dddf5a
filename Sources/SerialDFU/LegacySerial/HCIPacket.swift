import Checksums

/// One packet of the three-wire UART (HCI) transport that SDK ≤ 11 serial bootloaders and Adafruit's nRF52
/// bootloader speak (dfu-protocols.md §5.2): a 4-byte header, the payload, a CRC-16, SLIP-framed with an END on
/// both sides.
package struct HCIPacket: Sendable, Equatable {
    /// The packet type of DFU data packets.
    package static let vendorSpecificType: UInt8 = 14
    /// The packet type of an acknowledgement (header only).
    package static let acknowledgementType: UInt8 = 0

    /// Sequence number, 0–7.
    package var sequence: UInt8
    /// The next sequence number the sender expects from its peer, 0–7.
    package var acknowledgement: UInt8
    /// Whether the packet must be acknowledged.
    package var isReliable: Bool
    /// The packet type.
    package var type: UInt8
    /// The payload.
    package var payload: [UInt8]
    /// Whether a CRC-16 follows the payload.
    package var hasIntegrityCheck: Bool

    /// A reliable DFU packet with a CRC, acknowledging `sequence + 1` as the Nordic and Adafruit hosts do.
    package init(sequence: UInt8, payload: [UInt8]) {
        self.sequence = sequence & 7
        self.acknowledgement = (sequence + 1) & 7
        self.isReliable = true
        self.type = Self.vendorSpecificType
        self.payload = payload
        self.hasIntegrityCheck = true
    }

    /// An acknowledgement packet (what the bootloader sends back).
    package init(acknowledging next: UInt8) {
        sequence = 0
        acknowledgement = next & 7
        isReliable = false
        type = Self.acknowledgementType
        payload = []
        hasIntegrityCheck = false
    }

    /// The header and payload (and CRC) before SLIP.
    package var unframed: [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = [
            sequence | acknowledgement << 3 | (hasIntegrityCheck ? 0x40 : 0) | (isReliable ? 0x80 : 0),
            type | UInt8(length & 0x0F) << 4, UInt8((length >> 4) & 0xFF),
        ]
        bytes.append(0 &- bytes.reduce(0, &+))
        bytes += payload
        if hasIntegrityCheck {
            let crc = CRC16.checksum(bytes)
            bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
        return bytes
    }

    /// The wire bytes: END, the escaped packet, END.
    package var wire: [UInt8] { [SLIP.end] + SLIP.encode(unframed) }

    /// Decodes a SLIP-decoded frame; `nil` when the header checksum, the length or the CRC is wrong.
    package init?(frame: [UInt8]) {
        guard frame.count >= 4, frame[0...3].reduce(0, &+) == 0 else { return nil }
        let length = Int(frame[1] >> 4) | Int(frame[2]) << 4
        let hasCRC = frame[0] & 0x40 != 0
        guard frame.count == 4 + length + (hasCRC ? 2 : 0) else { return nil }
        if hasCRC {
            let crc = CRC16.checksum(frame.prefix(4 + length))
            guard frame[4 + length] == UInt8(crc & 0xFF), frame[5 + length] == UInt8(crc >> 8) else { return nil }
        }
        sequence = frame[0] & 7
        acknowledgement = (frame[0] >> 3) & 7
        hasIntegrityCheck = hasCRC
        isReliable = frame[0] & 0x80 != 0
        type = frame[1] & 0x0F
        payload = Array(frame[4..<(4 + length)])
    }
}

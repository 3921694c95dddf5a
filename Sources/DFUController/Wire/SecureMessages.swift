/// A Secure DFU Control Point request; ``encoded`` gives its bytes (dfu-protocols.md §2.2).
enum SecureRequest: Equatable, Sendable {
    /// `06 type`.
    case selectObject(SecureObjectType)
    /// `01 type size(u32 LE)`.
    case createObject(SecureObjectType, size: UInt32)
    /// `02 N(u16 LE)`; 0 disables notifications.
    case setPacketReceiptNotification(UInt16)
    /// `03`.
    case calculateChecksum
    /// `04`.
    case execute
    /// `0C`.
    case abort

    /// The opcode the target echoes in its response.
    var opcode: SecureOpcode {
        switch self {
        case .selectObject: .selectObject
        case .createObject: .createObject
        case .setPacketReceiptNotification: .setPacketReceiptNotification
        case .calculateChecksum: .calculateChecksum
        case .execute: .execute
        case .abort: .abort
        }
    }

    /// The request's bytes as written to the Control Point.
    var encoded: [UInt8] {
        switch self {
        case .selectObject(let type): [opcode.rawValue, type.rawValue]
        case .createObject(let type, let size): [opcode.rawValue, type.rawValue] + LittleEndian.bytes(of: size)
        case .setPacketReceiptNotification(let interval): [opcode.rawValue] + LittleEndian.bytes(of: interval)
        case .calculateChecksum, .execute, .abort: [opcode.rawValue]
        }
    }
}

/// The payload of a successful Select response: three u32 LE fields after `60 06 01`.
package struct ObjectInfo: Equatable, Sendable {
    /// The largest object the target accepts, in payload bytes (256 for command, 4096 for data on nRF52).
    package var maximumSize: UInt32
    /// The payload bytes of this object type the target holds.
    package var offset: UInt32
    /// CRC-32 of those bytes, cumulative from the start of the image.
    package var crc: UInt32
}

/// The payload of a checksum response or packet receipt notification: two u32 LE fields after `60 03 01`.
package struct ChecksumReport: Equatable, Sendable {
    /// The payload bytes the target holds.
    package var offset: UInt32
    /// CRC-32 of those bytes, cumulative from the start of the image.
    package var crc: UInt32
}

/// A validated Secure DFU Control Point notification answering one request.
enum SecureResponse: Equatable, Sendable {
    /// `60 op 01` with no payload.
    case success
    /// `60 06 01 max offset crc`.
    case objectInfo(ObjectInfo)
    /// `60 03 01 offset crc`.
    case checksum(ChecksumReport)
    /// `60 op rc [ext]` with `rc` other than success.
    case rejected(SecureResultCode, SecureExtendedError?)

    /// Decodes a notification that answers `request`.
    ///
    /// Layout (§2.3): `60`, the request opcode, the result code, then the success payload (Select: 12 bytes,
    /// Calculate Checksum: 8 bytes) or, for result `0x0B`, one extended error byte.
    ///
    /// - Parameters:
    ///   - bytes: The notification value.
    ///   - request: The opcode of the request that is waiting for an answer.
    /// - Returns: The response.
    /// - Throws: ``ProtocolViolation`` if the bytes are short, answer another opcode, or hold an unknown code.
    static func decode(_ bytes: [UInt8], answering request: SecureOpcode) throws(ProtocolViolation) -> SecureResponse {
        let header = [SecureOpcode.response.rawValue, request.rawValue]
        guard bytes.count >= 3 else {
            if bytes.starts(with: header.prefix(bytes.count)) {
                throw .tooShort(expectedLength: 3, received: bytes)
            }
            throw .unexpectedMessage(expected: header, received: bytes)
        }
        guard bytes[0] == header[0], bytes[1] == header[1] else {
            throw .unexpectedMessage(expected: header, received: bytes)
        }
        guard let result = SecureResultCode(rawValue: bytes[2]) else { throw .unknownResultCode(received: bytes) }
        switch result {
        case .success:
            switch request {
            case .selectObject:
                guard bytes.count >= 15 else { throw .tooShort(expectedLength: 15, received: bytes) }
                return .objectInfo(
                    ObjectInfo(
                        maximumSize: LittleEndian.uint32(bytes, at: 3),
                        offset: LittleEndian.uint32(bytes, at: 7),
                        crc: LittleEndian.uint32(bytes, at: 11)))
            case .calculateChecksum:
                guard bytes.count >= 11 else { throw .tooShort(expectedLength: 11, received: bytes) }
                return .checksum(
                    ChecksumReport(offset: LittleEndian.uint32(bytes, at: 3), crc: LittleEndian.uint32(bytes, at: 7)))
            case .protocolVersion, .createObject, .setPacketReceiptNotification, .execute, .getMTU, .writeObject,
                .ping, .getHardwareVersion, .getFirmwareVersion, .abort, .response:
                return .success
            }
        case .extendedError:
            guard bytes.count >= 4 else { throw .tooShort(expectedLength: 4, received: bytes) }
            guard let extended = SecureExtendedError(rawValue: bytes[3]) else {
                throw .unknownExtendedError(received: bytes)
            }
            return .rejected(result, extended)
        case .invalidOpcode, .opcodeNotSupported, .invalidParameter, .insufficientResources, .invalidObject,
            .signatureMismatch, .unsupportedType, .operationNotPermitted, .operationFailed:
            return .rejected(result, nil)
        }
    }
}

/// Legacy DFU Control Point opcodes (SDK 11 `ble_dfu.h`; dfu-protocols.md §1.3).
package enum LegacyOpcode: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x01`: Start DFU, `01` (v1) or `01 tt` (v2+); the size packet follows on the Packet characteristic.
    case startDFU = 0x01
    /// `0x02`: Initialize DFU Parameters; `02 00` begins and `02 01` completes the init packet (SDK 7+).
    case initializeDFUParameters = 0x02
    /// `0x03`: Receive Firmware Image; the firmware stream follows on the Packet characteristic.
    case receiveFirmwareImage = 0x03
    /// `0x04`: Validate Firmware.
    case validateFirmware = 0x04
    /// `0x05`: Activate Image and Reset; no response, the target resets.
    case activateAndReset = 0x05
    /// `0x06`: Reset; abandons the update, no response.
    case reset = 0x06
    /// `0x07`: Report Received Image Size.
    case reportReceivedImageSize = 0x07
    /// `0x08`: Packet Receipt Notification Request, `08 N(u16 LE)`; no response.
    case packetReceiptNotificationRequest = 0x08
    /// `0x10`: response marker, target to host: `10 op status`.
    case response = 0x10
    /// `0x11`: packet receipt notification, target to host: `11 bytes(u32 LE)`.
    case packetReceiptNotification = 0x11

    /// The name and raw byte, for logs: `validateFirmware (0x04)`.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .startDFU: "startDFU"
        case .initializeDFUParameters: "initializeDFUParameters"
        case .receiveFirmwareImage: "receiveFirmwareImage"
        case .validateFirmware: "validateFirmware"
        case .activateAndReset: "activateAndReset"
        case .reset: "reset"
        case .reportReceivedImageSize: "reportReceivedImageSize"
        case .packetReceiptNotificationRequest: "packetReceiptNotificationRequest"
        case .response: "response"
        case .packetReceiptNotification: "packetReceiptNotification"
        }
    }
}

/// Legacy DFU response status values (SDK 11 `ble_dfu_resp_val_t`; dfu-protocols.md §1.4).
package enum LegacyStatus: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `1`: success.
    case success = 1
    /// `2`: the request came in the wrong state (wrong order, unfinished earlier update).
    case invalidState = 2
    /// `3`: the request or a size packet is not supported.
    case notSupported = 3
    /// `4`: the image is larger than the target accepts.
    case dataSizeExceedsLimit = 4
    /// `5`: the received image does not match the init packet's CRC.
    case crcError = 5
    /// `6`: the operation failed (init packet rejected, flash failure, data sent too fast).
    case operationFailed = 6

    /// The name and raw byte, for logs: `crcError (0x05)`.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .success: "success"
        case .invalidState: "invalidState"
        case .notSupported: "notSupported"
        case .dataSizeExceedsLimit: "dataSizeExceedsLimit"
        case .crcError: "crcError"
        case .operationFailed: "operationFailed"
        }
    }
}

/// A validated legacy Control Point notification.
enum LegacyNotification: Equatable, Sendable {
    /// `10 op status`.
    case response(LegacyOpcode, LegacyStatus)
    /// `11 bytes(u32 LE)`: firmware bytes received so far.
    case packetReceipt(bytesReceived: UInt32)
    /// `10 07 01 bytes(u32 LE)`: the answer to Report Received Image Size.
    case receivedImageSize(UInt32)

    /// Decodes a legacy Control Point notification.
    ///
    /// - Parameter bytes: The notification value.
    /// - Returns: The notification.
    /// - Throws: ``ProtocolViolation`` if the bytes are short or hold an unknown opcode or status.
    static func decode(_ bytes: [UInt8]) throws(ProtocolViolation) -> LegacyNotification {
        guard let first = bytes.first else { throw .tooShort(expectedLength: 3, received: bytes) }
        switch first {
        case LegacyOpcode.response.rawValue:
            guard bytes.count >= 3 else { throw .tooShort(expectedLength: 3, received: bytes) }
            guard let opcode = LegacyOpcode(rawValue: bytes[1]) else {
                throw .unexpectedMessage(expected: [first], received: bytes)
            }
            guard let status = LegacyStatus(rawValue: bytes[2]) else { throw .unknownResultCode(received: bytes) }
            guard opcode == .reportReceivedImageSize, status == .success else { return .response(opcode, status) }
            guard bytes.count >= 7 else { throw .tooShort(expectedLength: 7, received: bytes) }
            return .receivedImageSize(LittleEndian.uint32(bytes, at: 3))
        case LegacyOpcode.packetReceiptNotification.rawValue:
            guard bytes.count >= 5 else { throw .tooShort(expectedLength: 5, received: bytes) }
            return .packetReceipt(bytesReceived: LittleEndian.uint32(bytes, at: 1))
        default:
            throw .unexpectedMessage(expected: [LegacyOpcode.response.rawValue], received: bytes)
        }
    }
}

/// Buttonless DFU opcodes on 8EC90003/8EC90004 (SDK 15 `ble_dfu.h`; dfu-protocols.md §2.10).
package enum ButtonlessOpcode: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x01`: enter the bootloader.
    case enterBootloader = 0x01
    /// `0x02`: set the bootloader's advertisement name, `02 len name` (without bonds, SDK 14+).
    case setAdvertisementName = 0x02
    /// `0x20`: response marker, target to host: `20 op result`.
    case response = 0x20

    /// The name and raw byte, for logs.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .enterBootloader: "enterBootloader"
        case .setAdvertisementName: "setAdvertisementName"
        case .response: "response"
        }
    }
}

/// Buttonless DFU result codes (SDK 15 `ble_dfu_buttonless_rsp_code_t`; dfu-protocols.md §2.10).
package enum ButtonlessResultCode: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x01`: success.
    case success = 0x01
    /// `0x02`: opcode not supported.
    case opcodeNotSupported = 0x02
    /// `0x04`: operation failed.
    case operationFailed = 0x04
    /// `0x05`: the advertisement name is empty or longer than 20 bytes.
    case invalidAdvertisementName = 0x05
    /// `0x06`: a previous asynchronous operation is still pending.
    case busy = 0x06
    /// `0x07`: the bonded variant requires a bonded link.
    case notBonded = 0x07

    /// The name and raw byte, for logs.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .success: "success"
        case .opcodeNotSupported: "opcodeNotSupported"
        case .operationFailed: "operationFailed"
        case .invalidAdvertisementName: "invalidAdvertisementName"
        case .busy: "busy"
        case .notBonded: "notBonded"
        }
    }

    /// Decodes the indication `20 op result` answering `request`.
    ///
    /// - Parameters:
    ///   - bytes: The indication value.
    ///   - request: The opcode waiting for an answer.
    /// - Returns: The result code.
    /// - Throws: ``ProtocolViolation`` if the bytes are short, answer another opcode or hold an unknown code.
    static func decode(_ bytes: [UInt8], answering request: ButtonlessOpcode) throws(ProtocolViolation)
        -> ButtonlessResultCode
    {
        let header = [ButtonlessOpcode.response.rawValue, request.rawValue]
        guard bytes.count >= 3 else { throw .tooShort(expectedLength: 3, received: bytes) }
        guard bytes[0] == header[0], bytes[1] == header[1] else {
            throw .unexpectedMessage(expected: header, received: bytes)
        }
        guard let result = ButtonlessResultCode(rawValue: bytes[2]) else { throw .unknownResultCode(received: bytes) }
        return result
    }
}

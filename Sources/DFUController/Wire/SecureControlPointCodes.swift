/// Secure DFU Control Point opcodes (nRF5 SDK 15 `nrf_dfu_req_handler.h`, `nrf_dfu_op_t`; dfu-protocols.md §2.2).
package enum SecureOpcode: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x00`: retrieve the protocol version (SDK 15+; payload on serial only).
    case protocolVersion = 0x00
    /// `0x01`: create a command or data object: `01 type size(u32 LE)`.
    case createObject = 0x01
    /// `0x02`: set the packet receipt notification interval: `02 N(u16 LE)`, 0 = off.
    case setPacketReceiptNotification = 0x02
    /// `0x03`: calculate checksum; answered with offset (u32 LE) and CRC-32 (u32 LE).
    case calculateChecksum = 0x03
    /// `0x04`: execute the current object.
    case execute = 0x04
    /// `0x06`: select an object type; answered with max size, offset and CRC-32 (3 × u32 LE).
    case selectObject = 0x06
    /// `0x07`: get the serial MTU (no payload over BLE).
    case getMTU = 0x07
    /// `0x08`: write object data (serial only; BLE writes the Packet characteristic).
    case writeObject = 0x08
    /// `0x09`: ping (serial).
    case ping = 0x09
    /// `0x0A`: get hardware version (SDK 15+).
    case getHardwareVersion = 0x0A
    /// `0x0B`: get firmware version (SDK 15+).
    case getFirmwareVersion = 0x0B
    /// `0x0C`: abort the update; the target resets (SDK 15+).
    case abort = 0x0C
    /// `0x60`: response marker, target to host.
    case response = 0x60

    /// The name and raw byte, for logs: `selectObject (0x06)`.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .protocolVersion: "protocolVersion"
        case .createObject: "createObject"
        case .setPacketReceiptNotification: "setPacketReceiptNotification"
        case .calculateChecksum: "calculateChecksum"
        case .execute: "execute"
        case .selectObject: "selectObject"
        case .getMTU: "getMTU"
        case .writeObject: "writeObject"
        case .ping: "ping"
        case .getHardwareVersion: "getHardwareVersion"
        case .getFirmwareVersion: "getFirmwareVersion"
        case .abort: "abort"
        case .response: "response"
        }
    }
}

/// Secure DFU object types (`nrf_dfu_obj_type_t`).
package enum SecureObjectType: UInt8, Sendable, Equatable, CustomStringConvertible {
    /// `0x01`: the command object, which carries the init packet.
    case command = 0x01
    /// `0x02`: a data object, one chunk of the firmware image.
    case data = 0x02

    /// The name and raw byte, for logs.
    package var description: String { "\(self == .command ? "command" : "data") (\(hexByte(rawValue)))" }
}

/// Secure DFU result codes (`nrf_dfu_result_t`, SDK 15 `nrf_dfu_req_handler.h`; dfu-protocols.md §2.4).
package enum SecureResultCode: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x00`: the opcode was missing or malformed.
    case invalidOpcode = 0x00
    /// `0x01`: the request succeeded.
    case success = 0x01
    /// `0x02`: the opcode is not supported.
    case opcodeNotSupported = 0x02
    /// `0x03`: a parameter was missing or wrong (bad size, unaligned non-final object, write beyond the object).
    case invalidParameter = 0x03
    /// `0x04`: not enough memory or space for the object or the image.
    case insufficientResources = 0x04
    /// `0x05`: the object is invalid (init packet undecodable, signature check failed, erase failed).
    case invalidObject = 0x05
    /// `0x06`: not defined by the SDK; the host libraries call it an invalid signature.
    case signatureMismatch = 0x06
    /// `0x07`: the object type is not supported.
    case unsupportedType = 0x07
    /// `0x08`: the request is not allowed in the current state.
    case operationNotPermitted = 0x08
    /// `0x0A`: the operation failed (SDK 12 uses it for every validation failure).
    case operationFailed = 0x0A
    /// `0x0B`: an extended error code follows in the next byte (SDK 13+).
    case extendedError = 0x0B

    /// The name and raw byte, for logs: `operationNotPermitted (0x08)`.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .invalidOpcode: "invalidOpcode"
        case .success: "success"
        case .opcodeNotSupported: "opcodeNotSupported"
        case .invalidParameter: "invalidParameter"
        case .insufficientResources: "insufficientResources"
        case .invalidObject: "invalidObject"
        case .signatureMismatch: "signatureMismatch"
        case .unsupportedType: "unsupportedType"
        case .operationNotPermitted: "operationNotPermitted"
        case .operationFailed: "operationFailed"
        case .extendedError: "extendedError"
        }
    }
}

/// Secure DFU extended error codes (`nrf_dfu_ext_error_code_t`, SDK 15 `nrf_dfu_handling_error.h`; §2.4).
package enum SecureExtendedError: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `0x00`: no extended error was set (a bootloader implementation problem).
    case noError = 0x00
    /// `0x01`: the extended error code itself was invalid.
    case invalidErrorCode = 0x01
    /// `0x02`: the command was formatted wrongly.
    case wrongCommandFormat = 0x02
    /// `0x03`: the command was decoded but is unknown.
    case unknownCommand = 0x03
    /// `0x04`: the init command is invalid (bad type, missing hardware version, sizes or firmware version).
    case initCommandInvalid = 0x04
    /// `0x05`: the firmware version is too low.
    case firmwareVersionFailure = 0x05
    /// `0x06`: the hardware version does not match.
    case hardwareVersionFailure = 0x06
    /// `0x07`: the running SoftDevice is not in the init packet's `sd_req` list.
    case softDeviceVersionFailure = 0x07
    /// `0x08`: the init packet should be signed but is not.
    case signatureMissing = 0x08
    /// `0x09`: the hash type is not supported (must be SHA-256).
    case wrongHashType = 0x09
    /// `0x0A`: the hash could not be calculated.
    case hashFailed = 0x0A
    /// `0x0B`: the signature type is not supported.
    case wrongSignatureType = 0x0B
    /// `0x0C`: the firmware hash does not match the init packet's hash.
    case verificationFailed = 0x0C
    /// `0x0D`: the image does not fit.
    case insufficientSpace = 0x0D

    /// The name and raw byte, for logs: `firmwareVersionFailure (0x05)`.
    package var description: String { "\(name) (\(hexByte(rawValue)))" }

    private var name: String {
        switch self {
        case .noError: "noError"
        case .invalidErrorCode: "invalidErrorCode"
        case .wrongCommandFormat: "wrongCommandFormat"
        case .unknownCommand: "unknownCommand"
        case .initCommandInvalid: "initCommandInvalid"
        case .firmwareVersionFailure: "firmwareVersionFailure"
        case .hardwareVersionFailure: "hardwareVersionFailure"
        case .softDeviceVersionFailure: "softDeviceVersionFailure"
        case .signatureMissing: "signatureMissing"
        case .wrongHashType: "wrongHashType"
        case .hashFailed: "hashFailed"
        case .wrongSignatureType: "wrongSignatureType"
        case .verificationFailed: "verificationFailed"
        case .insufficientSpace: "insufficientSpace"
        }
    }
}

/// Secure DFU control point opcodes (`nrf_dfu_op_t`, nRF5 SDK 15 `nrf_dfu_req_handler.h`).
package enum SecureDFUOpcode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// 0x00: protocol version; BLE response carries no payload.
    case protocolVersion = 0x00
    /// 0x01: create object `01 type size(u32)`.
    case createObject = 0x01
    /// 0x02: set packet receipt notification `02 N(u16)`.
    case setPacketReceiptNotification = 0x02
    /// 0x03: calculate checksum; response payload offset u32, CRC-32 u32.
    case calculateChecksum = 0x03
    /// 0x04: execute the current object.
    case execute = 0x04
    /// 0x06: select object `06 type`; response payload max size, offset, CRC-32 (u32 each).
    case selectObject = 0x06
    /// 0x07: get MTU; BLE response carries no payload.
    case getMTU = 0x07
    /// 0x08: write object (serial only).
    case writeObject = 0x08
    /// 0x09: ping.
    case ping = 0x09
    /// 0x0A: get hardware version.
    case getHardwareVersion = 0x0A
    /// 0x0B: get firmware version.
    case getFirmwareVersion = 0x0B
    /// 0x0C: abort; the device resets.
    case abort = 0x0C
    /// 0x60: response marker (device to host).
    case response = 0x60

    /// Name and hex, for example "execute (0x04)".
    package var description: String { "\(name) (0x\(hexByte(rawValue)))" }

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

/// Secure DFU result codes (`nrf_dfu_result_t`).
package enum SecureDFUResultCode: UInt8, Sendable, CaseIterable {
    /// 0x00.
    case invalidOpcode = 0x00
    /// 0x01.
    case success = 0x01
    /// 0x02.
    case opcodeNotSupported = 0x02
    /// 0x03.
    case invalidParameter = 0x03
    /// 0x04.
    case insufficientResources = 0x04
    /// 0x05.
    case invalidObject = 0x05
    /// 0x07.
    case unsupportedType = 0x07
    /// 0x08.
    case operationNotPermitted = 0x08
    /// 0x0A.
    case operationFailed = 0x0A
    /// 0x0B: an extended error byte follows.
    case extendedError = 0x0B
}

/// Secure DFU extended error codes (`nrf_dfu_ext_error_code_t`, SDK 15 `nrf_dfu_handling_error.h`).
package enum SecureDFUExtendedError: UInt8, Sendable, CaseIterable {
    /// 0x00.
    case noError = 0x00
    /// 0x01.
    case invalidErrorCode = 0x01
    /// 0x02.
    case wrongCommandFormat = 0x02
    /// 0x03.
    case unknownCommand = 0x03
    /// 0x04.
    case initCommandInvalid = 0x04
    /// 0x05.
    case firmwareVersionFailure = 0x05
    /// 0x06.
    case hardwareVersionFailure = 0x06
    /// 0x07.
    case softDeviceVersionFailure = 0x07
    /// 0x08.
    case signatureMissing = 0x08
    /// 0x09.
    case wrongHashType = 0x09
    /// 0x0A.
    case hashFailed = 0x0A
    /// 0x0B.
    case wrongSignatureType = 0x0B
    /// 0x0C.
    case verificationFailed = 0x0C
    /// 0x0D.
    case insufficientSpace = 0x0D
}

/// The outcome of a Secure DFU request: a result code, or an extended error.
enum SecureOutcome: Equatable {
    case result(SecureDFUResultCode)
    case extended(SecureDFUExtendedError)

    static let success = SecureOutcome.result(.success)

    /// The bytes after `60 op`: the result code and, for extended errors, the extended code.
    var bytes: [UInt8] {
        switch self {
        case .result(let code): [code.rawValue]
        case .extended(let code): [SecureDFUResultCode.extendedError.rawValue, code.rawValue]
        }
    }
}

/// Secure DFU object types (`nrf_dfu_obj_type_t`).
enum SecureObjectType: UInt8 {
    case command = 0x01
    case data = 0x02
}

/// Init packet firmware types (`dfu.FwType` in `dfu-cc.proto`).
enum InitFirmwareType: UInt32 {
    case application = 0
    case softDevice = 1
    case bootloader = 2
    case softDeviceBootloader = 3
    case externalApplication = 4
}

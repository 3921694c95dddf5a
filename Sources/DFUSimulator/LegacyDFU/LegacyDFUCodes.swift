/// Legacy DFU control point opcodes (dfu-protocols.md §1.3, SDK 11 `ble_dfu.h`).
package enum LegacyDFUOpcode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// 0x01: Start DFU (`01` in v1, `01 tt` later), followed by the size packet on PKT.
    case startDFU = 0x01
    /// 0x02: Initialize DFU Parameters (`02`, or `02 00` / `02 01` from SDK 7).
    case initializeDFUParameters = 0x02
    /// 0x03: Receive Firmware Image.
    case receiveFirmwareImage = 0x03
    /// 0x04: Validate Firmware.
    case validateFirmware = 0x04
    /// 0x05: Activate Image and Reset.
    case activateImageAndReset = 0x05
    /// 0x06: Reset.
    case reset = 0x06
    /// 0x07: Report Received Image Size.
    case reportReceivedImageSize = 0x07
    /// 0x08: Packet Receipt Notification Request `08 N(u16)`.
    case packetReceiptNotificationRequest = 0x08
    /// 0x10: Response (device to host) `10 op status`.
    case response = 0x10
    /// 0x11: Packet Receipt Notification (device to host) `11 bytes(u32)`.
    case packetReceiptNotification = 0x11

    /// Name and hex, for example "validateFirmware (0x04)".
    package var description: String {
        let name =
            switch self {
            case .startDFU: "startDFU"
            case .initializeDFUParameters: "initializeDFUParameters"
            case .receiveFirmwareImage: "receiveFirmwareImage"
            case .validateFirmware: "validateFirmware"
            case .activateImageAndReset: "activateImageAndReset"
            case .reset: "reset"
            case .reportReceivedImageSize: "reportReceivedImageSize"
            case .packetReceiptNotificationRequest: "packetReceiptNotificationRequest"
            case .response: "response"
            case .packetReceiptNotification: "packetReceiptNotification"
            }
        return "\(name) (0x\(hexByte(rawValue)))"
    }
}

/// Legacy DFU response status codes (dfu-protocols.md §1.4).
package enum LegacyDFUStatus: UInt8, Sendable, CaseIterable {
    /// 1.
    case success = 1
    /// 2.
    case invalidState = 2
    /// 3.
    case notSupported = 3
    /// 4.
    case dataSizeExceedsLimit = 4
    /// 5.
    case crcError = 5
    /// 6.
    case operationFailed = 6
}

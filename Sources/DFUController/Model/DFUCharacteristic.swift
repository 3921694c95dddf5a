/// A GATT characteristic the controller talks to, named by its role.
///
/// Mapping roles to D-Bus object paths is the adapter's job; the UUIDs are here so that it needs no table of its
/// own (dfu-protocols.md §0.1). UUID strings are uppercase, in the 8-4-4-4-12 form BlueZ prints in lowercase.
package enum DFUCharacteristic: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Secure DFU Control Point, 8EC90001: write with response, notify.
    case secureControlPoint
    /// Secure DFU Packet, 8EC90002: write without response.
    case securePacket
    /// Buttonless DFU without bond sharing, 8EC90003 in the application's FE59 service: write, indicate.
    case buttonlessWithoutBonds
    /// Buttonless DFU with bond sharing, 8EC90004 in the application's FE59 service: write, indicate.
    case buttonlessWithBonds
    /// Legacy DFU Control Point, 1531: write with response, notify.
    case legacyControlPoint
    /// Legacy DFU Packet, 1532: write without response, at most 20 bytes.
    case legacyPacket
    /// Legacy DFU Version, 1534: read, 2 bytes `[minor, major]` (SDK 7+).
    case legacyVersion

    /// The characteristic's 128-bit UUID.
    package var uuid: String {
        switch self {
        case .secureControlPoint: "8EC90001-F315-4F60-9FB8-838830DAEA50"
        case .securePacket: "8EC90002-F315-4F60-9FB8-838830DAEA50"
        case .buttonlessWithoutBonds: "8EC90003-F315-4F60-9FB8-838830DAEA50"
        case .buttonlessWithBonds: "8EC90004-F315-4F60-9FB8-838830DAEA50"
        case .legacyControlPoint: "00001531-1212-EFDE-1523-785FEABCD123"
        case .legacyPacket: "00001532-1212-EFDE-1523-785FEABCD123"
        case .legacyVersion: "00001534-1212-EFDE-1523-785FEABCD123"
        }
    }

    /// The UUID of the service that holds the characteristic.
    package var serviceUUID: String {
        switch self {
        case .secureControlPoint, .securePacket, .buttonlessWithoutBonds, .buttonlessWithBonds:
            Self.secureServiceUUID
        case .legacyControlPoint, .legacyPacket, .legacyVersion:
            Self.legacyServiceUUID
        }
    }

    /// The Secure DFU service, SIG-assigned 16-bit UUID FE59, in 128-bit form.
    package static let secureServiceUUID = "0000FE59-0000-1000-8000-00805F9B34FB"
    /// The legacy DFU service, 1530 on Nordic's vendor base.
    package static let legacyServiceUUID = "00001530-1212-EFDE-1523-785FEABCD123"

    /// The role's name: `secureControlPoint`.
    package var description: String {
        switch self {
        case .secureControlPoint: "secureControlPoint"
        case .securePacket: "securePacket"
        case .buttonlessWithoutBonds: "buttonlessWithoutBonds"
        case .buttonlessWithBonds: "buttonlessWithBonds"
        case .legacyControlPoint: "legacyControlPoint"
        case .legacyPacket: "legacyPacket"
        case .legacyVersion: "legacyVersion"
        }
    }
}

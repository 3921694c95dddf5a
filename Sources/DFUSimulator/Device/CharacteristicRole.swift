/// A GATT characteristic the simulated device may expose, named by the job it does in DFU.
///
/// Which roles exist depends on the mode the device is in: a Secure DFU bootloader exposes the secure control
/// point and packet, a legacy bootloader the legacy trio, an application at most its buttonless characteristic.
package enum CharacteristicRole: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Secure DFU Control Point (Write, Notify), in service FE59.
    case secureControlPoint
    /// Secure DFU Packet (Write Without Response), in service FE59.
    case securePacket
    /// Buttonless DFU without bond sharing (Write, Indicate), in the application's FE59 service; SDK 13+.
    case buttonlessWithoutBonds
    /// Buttonless DFU with bond sharing (Write, Indicate), in the application's FE59 service; SDK 14+.
    case buttonlessWithBonds
    /// Legacy DFU Control Point (Write, Notify), in service 1530.
    case legacyControlPoint
    /// Legacy DFU Packet (Write Without Response, at most 20 bytes), in service 1530.
    case legacyPacket
    /// Legacy DFU Version (Read, 2 bytes: minor, major); present since SDK 7.0.
    case legacyVersion

    /// The Secure DFU service UUID (SIG-assigned 16-bit `FE59`) in full 128-bit form.
    package static let secureServiceUUID = "0000FE59-0000-1000-8000-00805F9B34FB"
    /// The legacy DFU service UUID.
    package static let legacyServiceUUID = "00001530-1212-EFDE-1523-785FEABCD123"

    /// The characteristic's 128-bit UUID, upper case (dfu-protocols.md §0.1).
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

    /// Whether the client must enable notifications or indications before writing (else ATT error 0xFD).
    var requiresSubscription: Bool {
        switch self {
        case .secureControlPoint, .buttonlessWithoutBonds, .buttonlessWithBonds, .legacyControlPoint: true
        case .securePacket, .legacyPacket, .legacyVersion: false
        }
    }

    /// Whether the role carries bulk data (a packet characteristic), the target of packet faults.
    var isPacket: Bool { self == .securePacket || self == .legacyPacket }

    /// The role's name in logs.
    package var description: String {
        switch self {
        case .secureControlPoint: "secure control point"
        case .securePacket: "secure packet"
        case .buttonlessWithoutBonds: "buttonless (no bonds)"
        case .buttonlessWithBonds: "buttonless (bonds)"
        case .legacyControlPoint: "legacy control point"
        case .legacyPacket: "legacy packet"
        case .legacyVersion: "legacy version"
        }
    }
}

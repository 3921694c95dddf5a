import DFUSimulator

/// How each DFU characteristic looks in a GATT database: its BlueZ flags and the requests it takes
/// (dfu-protocols.md §0.1, Nordic's `ble_dfu.c` and `nrf_dfu_ble.c`).
extension CharacteristicRole {
    /// `GattCharacteristic1.Flags`.
    var gattFlags: [String] {
        switch self {
        case .securePacket, .legacyPacket: ["write-without-response"]
        case .secureControlPoint, .legacyControlPoint: ["write", "notify"]
        case .buttonlessWithoutBonds, .buttonlessWithBonds: ["write", "indicate"]
        case .legacyVersion: ["read"]
        }
    }

    /// Whether an ATT Write Command is allowed.
    var acceptsWriteCommands: Bool { gattFlags.contains("write-without-response") }

    /// Whether an ATT Write Request is allowed.
    var acceptsWriteRequests: Bool { gattFlags.contains("write") }

    /// Whether the value can be read.
    var isReadable: Bool { gattFlags.contains("read") }

    /// Whether the characteristic notifies or indicates (has a CCCD).
    var hasClientConfiguration: Bool { gattFlags.contains("notify") || gattFlags.contains("indicate") }

    /// `GattService1.UUID` / `GattCharacteristic1.UUID` form: lower case, 128-bit.
    var bluezUUID: String { uuid.lowercased() }
}

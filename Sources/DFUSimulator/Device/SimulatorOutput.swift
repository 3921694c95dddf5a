/// Something the simulated device did, stamped with the virtual time it happened.
package struct SimulatorEvent: Equatable, Sendable, CustomStringConvertible {
    /// When it happened, as time since the session started.
    package let time: Duration
    /// What happened.
    package let output: SimulatorOutput

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - time: When it happened.
    ///   - output: What happened.
    package init(time: Duration, output: SimulatorOutput) {
        self.time = time
        self.output = output
    }

    /// The event as one log line, `time output`.
    package var description: String { "\(time) \(output)" }
}

/// An output of the simulated device, at GATT level.
package enum SimulatorOutput: Equatable, Sendable, CustomStringConvertible {
    /// The link is up with this ATT MTU (after the MTU exchange).
    case connected(mtu: Int)
    /// The device acknowledged a CCCD write enabling notifications or indications on the role.
    case subscribed(CharacteristicRole)
    /// A notification or indication carrying `bytes` on the role.
    case notification(CharacteristicRole, [UInt8])
    /// The ATT Write Response to a write request.
    case writeAcknowledged(CharacteristicRole)
    /// A write request or CCCD write failed.
    case writeFailed(CharacteristicRole, GATTFailure)
    /// The value of a read.
    case readValue(CharacteristicRole, [UInt8])
    /// A read failed.
    case readFailed(CharacteristicRole, GATTFailure)
    /// The link went down.
    case disconnected(DisconnectReason)
    /// The device finished a reset and advertises again, in the given mode, address and name.
    case rebooted(Advertisement)

    /// The output as it appears in traces: hex bytes with the role name.
    package var description: String {
        switch self {
        case .connected(let mtu): "connected, MTU \(mtu)"
        case .subscribed(let role): "subscribed to \(role)"
        case .notification(let role, let bytes): "notify \(role): \(hexDump(bytes))"
        case .writeAcknowledged(let role): "write response \(role)"
        case .writeFailed(let role, let failure): "write \(role) failed: \(failure)"
        case .readValue(let role, let bytes): "read \(role): \(hexDump(bytes))"
        case .readFailed(let role, let failure): "read \(role) failed: \(failure)"
        case .disconnected(let reason): "disconnected: \(reason)"
        case .rebooted(let advertisement): "rebooted: \(advertisement)"
        }
    }
}

/// Why a GATT operation failed.
package enum GATTFailure: Equatable, Sendable, CustomStringConvertible {
    /// The device answered with an ATT error.
    case att(ATTError)
    /// There is no link.
    case notConnected
    /// The device's GATT database in its current mode has no such characteristic.
    case characteristicNotFound

    /// The failure in words.
    package var description: String {
        switch self {
        case .att(let error): "\(error)"
        case .notConnected: "not connected"
        case .characteristicNotFound: "characteristic not found"
        }
    }
}

/// ATT error codes the DFU services answer with (Bluetooth Core Vol 3 Part F §3.4.1.1 and the
/// Client Characteristic Configuration Descriptor error from Core Supplement Part B §1.2).
package enum ATTError: UInt8, Equatable, Sendable, CustomStringConvertible {
    /// 0x02: the attribute cannot be read.
    case readNotPermitted = 0x02
    /// 0x03: the attribute cannot be written (for example a write request to a write-without-response value).
    case writeNotPermitted = 0x03
    /// 0x0D: the value is longer than the attribute allows.
    case invalidAttributeValueLength = 0x0D
    /// 0xFD: notifications or indications are not enabled (`BLE_GATT_STATUS_ATTERR_CPS_CCCD_CONFIG_ERROR`).
    case cccdImproperlyConfigured = 0xFD

    /// The error's name and code.
    package var description: String {
        let name =
            switch self {
            case .readNotPermitted: "read not permitted"
            case .writeNotPermitted: "write not permitted"
            case .invalidAttributeValueLength: "invalid attribute value length"
            case .cccdImproperlyConfigured: "CCCD improperly configured"
            }
        return "\(name) (0x\(hexByte(rawValue)))"
    }
}

/// Why the link went down.
package enum DisconnectReason: Equatable, Sendable, CustomStringConvertible {
    /// The device closed the link (activation, buttonless jump, abort, reset command).
    case terminatedByDevice
    /// The device reset without closing the link; the central notices by supervision timeout.
    case supervisionTimeout
    /// The radio link was lost (an injected fault).
    case linkLost

    /// The reason in words.
    package var description: String {
        switch self {
        case .terminatedByDevice: "terminated by device"
        case .supervisionTimeout: "supervision timeout"
        case .linkLost: "link lost"
        }
    }
}

/// The firmware the device runs.
package enum DeviceMode: Equatable, Sendable, CustomStringConvertible {
    /// The application (with whatever buttonless service the configuration gives it).
    case application
    /// The Secure DFU bootloader.
    case secureBootloader
    /// The legacy DFU bootloader.
    case legacyBootloader

    /// The mode in words.
    package var description: String {
        switch self {
        case .application: "application"
        case .secureBootloader: "secure bootloader"
        case .legacyBootloader: "legacy bootloader"
        }
    }
}

/// How the device advertises after a reset.
package struct Advertisement: Equatable, Sendable, CustomStringConvertible {
    /// The firmware running.
    package let mode: DeviceMode
    /// The address it advertises with.
    package let address: DeviceAddress
    /// The Complete Local Name in the advertising data.
    package let name: String

    /// Creates an advertisement description.
    ///
    /// - Parameters:
    ///   - mode: The firmware running.
    ///   - address: The advertised address.
    ///   - name: The advertised name.
    package init(mode: DeviceMode, address: DeviceAddress, name: String) {
        self.mode = mode
        self.address = address
        self.name = name
    }

    /// `mode at address 'name'`.
    package var description: String { "\(mode) at \(address) '\(name)'" }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

func hexDump(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map(hexByte).joined(separator: " ")
}

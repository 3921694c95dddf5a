package import DFUController
package import DeviceLink

/// A characteristic ``BlueZGATTTransport`` maps on a connected device: one of the nRF5 DFU roles, or the SMP
/// (MCUmgr) characteristic of an nRF Connect SDK / Zephyr device.
///
/// The DFU engine sees only the ``dfu(_:)`` ones (through `GATTTransport`); an SMP link (`SMPBlueZ`) uses ``smp``
/// through the transport's link-level methods. Both go through one connection logic: discovery restarts, the
/// adapter's connection gate, service resolution and link loss reported once.
package enum LinkCharacteristic: Sendable, Hashable, CustomStringConvertible {
    /// An nRF5 DFU characteristic.
    case dfu(DFUCharacteristic)
    /// SMP's characteristic, DA2E7828-FBCE-4E01-AE9E-261174997C48: requests by write without response, answers by
    /// notification (Zephyr `subsys/mgmt/mcumgr/transport/src/smp_bt.c`).
    case smp

    /// The SMP service, 8D53DC1D-1DB7-4CD3-868B-8A527460AA84 (Zephyr `smp_bt.c`), upper case.
    package static let smpServiceUUID = "8D53DC1D-1DB7-4CD3-868B-8A527460AA84"
    /// The SMP characteristic, DA2E7828-FBCE-4E01-AE9E-261174997C48 (Zephyr `smp_bt.c`), upper case.
    package static let smpCharacteristicUUID = "DA2E7828-FBCE-4E01-AE9E-261174997C48"

    /// Every characteristic the transport knows.
    package static var allCases: [LinkCharacteristic] { DFUCharacteristic.allCases.map { .dfu($0) } + [.smp] }

    /// The characteristic's 128-bit UUID, upper case.
    package var uuid: String {
        switch self {
        case .dfu(let role): role.uuid
        case .smp: Self.smpCharacteristicUUID
        }
    }

    /// The characteristic with this UUID (any case), if the transport knows it.
    ///
    /// - Parameter uuid: A characteristic UUID as BlueZ reports it.
    package init?(uuid: String) {
        let wanted = uuid.uppercased()
        guard let match = Self.allCases.first(where: { $0.uuid == wanted }) else { return nil }
        self = match
    }

    /// Whether packets to it are written without response: the DFU packet characteristics and SMP's.
    ///
    /// Only these may go through an `AcquireWrite` socket.
    var takesWriteCommands: Bool {
        switch self {
        case .dfu(.securePacket), .dfu(.legacyPacket), .smp: true
        case .dfu: false
        }
    }

    /// The role's name: `securePacket`, or `smp`.
    package var description: String {
        switch self {
        case .dfu(let role): role.description
        case .smp: "smp"
        }
    }
}

/// Something the device did on a link, as ``BlueZGATTTransport/nextLinkEvent(until:)`` reports it.
package enum LinkEvent: Sendable, Equatable {
    /// A notification or indication on a characteristic.
    case notification(LinkCharacteristic, [UInt8])
    /// The link is down, once per connection; `reason` is the transport's wording.
    case disconnected(reason: String)
}

/// A connection as `BlueZGATTTransport.connectLink(_:deadline:)` found it.
package struct LinkConnection: Sendable, Equatable {
    /// The ATT MTU in effect: from the `AcquireWrite` socket when there is one, else BlueZ's `MTU` property, else 23.
    package var mtu: Int
    /// The characteristics the transport knows that the device offers.
    package var characteristics: Set<LinkCharacteristic>
    /// The address the transport connected to.
    package var address: BluetoothAddress

    /// Creates a connection description.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU.
    ///   - characteristics: The characteristics found.
    ///   - address: The device's address.
    package init(mtu: Int, characteristics: Set<LinkCharacteristic>, address: BluetoothAddress) {
        self.mtu = mtu
        self.characteristics = characteristics
        self.address = address
    }

    /// The DFU characteristics among them.
    package var dfuCharacteristics: Set<DFUCharacteristic> {
        Set(
            characteristics.compactMap { characteristic in
                if case .dfu(let role) = characteristic { role } else { nil }
            })
    }

    /// Whether the device offers SMP.
    package var offersSMP: Bool { characteristics.contains(.smp) }

    /// The nRF5 DFU services the device offers, in words: `Secure DFU (service FE59)`, `legacy DFU (service 1530)`.
    package var dfuServicesDescription: [String] {
        let services = Set(dfuCharacteristics.map(\.serviceUUID))
        var offered: [String] = []
        if services.contains(DFUCharacteristic.secureServiceUUID) { offered.append("Secure DFU (service FE59)") }
        if services.contains(DFUCharacteristic.legacyServiceUUID) { offered.append("legacy DFU (service 1530)") }
        return offered
    }
}

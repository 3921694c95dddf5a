package import BlueZ
import DBus
package import DFUSimulator

/// How a ``SimulatedPeripheral`` presents itself to BlueZ.
package struct SimulatedPeripheralOptions: Sendable {
    /// The ATT MTU a central is taken to ask for when it connects, and the `MTU` property before it does.
    ///
    /// BlueZ's D-Bus API does not tell a GATT server the MTU a central requested, so the simulated device
    /// negotiates against this value. 247 is what an SDK 15+ bootloader and most phones settle on.
    package var mtu: Int
    /// Whether `AcquireWrite` and `AcquireNotify` are offered (and `WriteAcquired`/`NotifyAcquired` exposed).
    ///
    /// Without them a central must use `WriteValue` and `StartNotify`; BlueZ answers its `Acquire*` calls with
    /// `org.bluez.Error.NotSupported`.
    package var offersAcquire: Bool
    /// Whether `AcquireWrite` is offered on packet characteristics too (when ``offersAcquire`` is true).
    ///
    /// Off by default: bluetoothd 5.66 can hand a GATT server the first write command it turns into an acquired
    /// socket late (after the next control-point request) or with stale bytes (testrig.md). A central's own
    /// `AcquireWrite` does not depend on it: on a real bluetoothd the central's socket is bluetoothd's. bluezoo
    /// offers a central `AcquireWrite` only when the server does, so tests of that path turn this on.
    package var offersAcquireWrite: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU a central is taken to ask for (23 to 517).
    ///   - offersAcquire: Whether `AcquireNotify` (and, with `offersAcquireWrite`, `AcquireWrite`) are offered.
    ///   - offersAcquireWrite: Whether `AcquireWrite` is offered on packet characteristics.
    package init(mtu: Int = 247, offersAcquire: Bool = true, offersAcquireWrite: Bool = false) {
        precondition((23...517).contains(mtu), "an ATT MTU is 23 to 517, got \(mtu)")
        self.mtu = mtu
        self.offersAcquire = offersAcquire
        self.offersAcquireWrite = offersAcquireWrite
    }

    /// Whether `AcquireWrite` is offered at all.
    var offersWriteSocket: Bool { offersAcquire && offersAcquireWrite }
}

/// The device as it is on the air: registered on an adapter with its GATT database and advertisement.
package struct PeripheralRegistration: Sendable, Equatable {
    /// The adapter that serves the device.
    package var adapter: AdapterInfo
    /// The device's mode, the address it wants and its name.
    package var advertisement: Advertisement
    /// The advertised service UUIDs, upper case, 128-bit form.
    package var serviceUUIDs: [String]
    /// The characteristics of the GATT database, by role.
    package var roles: [CharacteristicRole]

    /// Creates a registration description.
    package init(
        adapter: AdapterInfo, advertisement: Advertisement, serviceUUIDs: [String], roles: [CharacteristicRole]
    ) {
        self.adapter = adapter
        self.advertisement = advertisement
        self.serviceUUIDs = serviceUUIDs
        self.roles = roles
    }
}

/// Something a ``SimulatedPeripheral`` did or saw, in the order it happened.
package enum SimulatedPeripheralEvent: Sendable, Equatable {
    /// The GATT application and the advertisement are registered: a central can find and connect to the device.
    ///
    /// Comes once at start and again after every reboot of the device.
    case registered(PeripheralRegistration)
    /// The device now advertises with an address no powered adapter has, so it keeps the adapter's address
    /// (a radio cannot change its public address; bluezoo can add an adapter at run time).
    case addressUnavailable(wanted: DeviceAddress, adapter: AdapterInfo)
    /// A central connected; the device negotiated this ATT MTU.
    case connected(central: String, mtu: Int)
    /// The central is gone (it disconnected, or the device dropped the link).
    case disconnected(central: String)
    /// The central wrote to a control point or buttonless characteristic (packet writes are not reported).
    case written(CharacteristicRole, [UInt8])
    /// An output of the simulated device (a notification, a write response, a reset, …).
    case output(SimulatorEvent)
    /// A line of the simulated device's log: a client violation, an injected fault, a device action.
    case log(SimulatorLogEntry)
    /// The device activated new firmware: each component with its bytes.
    case activated([FirmwareType: [UInt8]])
    /// Something the peripheral could not do as asked, in one line: a notification nobody subscribed to through
    /// D-Bus, a second central, a request refused before it reached the device.
    case warning(String)
}

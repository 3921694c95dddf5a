package import BlueZ
import DFUSimulator
package import DeviceLink

/// How a ``SimulatedSMPPeripheral`` presents itself and behaves.
package struct SMPPeripheralOptions: Sendable {
    /// The advertised name.
    ///
    /// Default "Zephyr": `CONFIG_BT_DEVICE_NAME`'s default, which Zephyr's `smp_svr` sample keeps.
    package var name = "Zephyr"
    /// The ATT MTU a central is taken to ask for (23 to 517); the device's limit is what `mtu@N` leaves of it.
    ///
    /// Default 247, as `simulate`'s DFU targets: the usual LE Data Length Extension fit (251-byte PDUs).
    package var mtu = 247
    /// Whether `AcquireNotify` is offered on the SMP characteristic.
    package var offersAcquireNotify = true
    /// Whether `AcquireWrite` is offered on the SMP characteristic.
    ///
    /// Off by default for the reason ``SimulatedPeripheralOptions/offersAcquireWrite`` gives (bluetoothd 5.66 can
    /// hand a server's acquired socket the first write late or stale); bluezoo gives a central `AcquireWrite` only
    /// when the server offers it, so tests of that path turn it on.
    package var offersAcquireWrite = false
    /// Whether a boot takes MCUboot's swap time (`SimulatedSMPDevice.nextBootSwapDuration`, nRF52 flash) or none.
    package var takesSwapTime = true
    /// `CONFIG_MCUMGR_GRP_OS_RESET_MS`: Zephyr's delay between answering a reset and resetting (default 250 ms).
    package var resetDelay = Duration.milliseconds(250)
    /// The application's start-up after MCUboot, before it advertises again.
    package var bootTime = Duration.milliseconds(100)
    /// The faults to inject (counted as `--target sim:smp` counts them).
    package var faults = FaultPlan()

    /// The defaults.
    package init() {}
}

/// The two slots of the simulated device, whole (trailers included).
package struct SMPSlots: Sendable, Equatable {
    /// Every slot: image n's primary slot is 2n, its secondary (where uploads go) 2n + 1.
    package var all: [[UInt8]]

    /// Slot 0, image 0's running image.
    package var primary: [UInt8] { all[0] }
    /// Slot 1, where image 0's uploads go.
    package var secondary: [UInt8] { all[1] }

    /// Creates a copy of the slots.
    ///
    /// - Parameter all: Every slot, two per image.
    package init(_ all: [[UInt8]]) {
        self.all = all
    }
}

/// What the device received of image uploads, counted from its answers: the evidence that a resumed upload sends
/// nothing twice.
package struct SMPUploadTally: Sendable, Equatable {
    /// Image upload requests the device handled.
    package var requests = 0
    /// Image data bytes written to the secondary slot (chunks at the offset the device expected).
    package var bytesWritten = 0
    /// First chunks (with `len` and `sha`) answered with an offset past their own data: a resume, their data not
    /// written.
    package var resumeProbes = 0
    /// Chunks at another offset than the device expected, answered with the expected one and not written.
    package var staleChunks = 0
    /// The data bytes of those stale chunks.
    package var staleBytes = 0

    /// An empty tally.
    package init() {}
}

/// Something a ``SimulatedSMPPeripheral`` did or saw, in order.
package enum SMPPeripheralEvent: Sendable, Equatable {
    /// The GATT application (SMP service) and the advertisement are registered; again after every reboot.
    case registered(adapter: AdapterInfo, name: String, serviceUUIDs: [String])
    /// A central connected; the link's ATT MTU.
    case connected(central: String, mtu: Int)
    /// The central is gone; the slots and the upload tally as they are now.
    case disconnected(central: String, slots: SMPSlots, tally: SMPUploadTally)
    /// One request and its answer, summarised in a line (`> image upload off 0 len 131072 (292 bytes)`).
    case exchange(String)
    /// A line of the device's or the link's log: a boot, a fault.
    case log(String)
    /// The device booted; `swapped` when MCUboot moved a new image into slot 0 (an activation).
    case booted(swapped: Bool, description: String, slots: SMPSlots)
    /// Something the peripheral could not do as asked.
    case warning(String)
}

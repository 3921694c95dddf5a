package import SMPTargetAdapter

/// A device to update, and how to reach it.
///
/// The transport products make targets: `NRFLoaderBlueZ` a Bluetooth LE device through BlueZ
/// (`.bluetooth(address:options:)`, `.bluetooth(name:options:)`), `NRFLoaderSerial` a serial or USB CDC port (`.serial(_:options:)`),
/// `NRFLoaderSimulator` a simulated Nordic bootloader or MCUboot device in this process (`.simulated(_:options:)`).
/// A target is a value: it connects when an update runs, and holds nothing open between updates.
///
/// The same target reaches the device for management too, when its transport carries SMP: see ``SMPDevice``.
public struct UpdateTarget: Sendable, CustomStringConvertible {
    /// The device as events and messages name it before the update resolves it: an address, a name, a port.
    public let description: String
    /// The shared resource the target's link uses: its Bluetooth adapter (`hci0`), its port, or `sim`.
    ///
    /// ``FleetUpdate`` runs at most its ``FleetUpdate/maximumConcurrentUpdates`` at once per lane.
    public let lane: String

    /// Runs an update over this target's transport in one protocol: prepares the firmware as that protocol takes it
    /// (refusing, with its own message, firmware of the other kind), emits every event, returns what the device
    /// confirmed.
    package typealias Run =
        @Sendable (_ firmware: Firmware, _ options: UpdateOptions, _ onEvent: (UpdateEvent) -> Void)
        async throws(UpdateError) -> UpdateSummary

    /// How the target's transport carries nRF5 DFU, if it does.
    package let dfu: Run?
    /// How the target's transport carries SMP, if it does.
    package let smp: Run?

    /// Opens, not yet connected, the SMP link that management requests (``SMPDevice``) go over.
    package typealias OpenManagementLink =
        @Sendable (_ options: ManagementOptions) async throws(UpdateError) -> any SMPTransport

    /// How management requests reach the device; `nil` for a target whose transport carries no SMP.
    package let openManagementLink: OpenManagementLink?

    /// A target of a transport module of this package; it carries at least one of the protocols.
    package init(
        description: String, lane: String, openManagementLink: OpenManagementLink? = nil, dfu: Run?, smp: Run?
    ) {
        precondition(dfu != nil || smp != nil, "a target carries nRF5 DFU, SMP or both")
        self.description = description
        self.lane = lane
        self.openManagementLink = openManagementLink
        self.dfu = dfu
        self.smp = smp
    }

    /// Runs an update: the one place where DFU or SMP is decided.
    ///
    /// An MCUboot image or package goes over SMP, anything else over nRF5 DFU. A target that carries only one of
    /// the protocols is handed the firmware all the same, and its protocol refuses firmware of the other kind with
    /// a message naming both.
    package func run(_ firmware: Firmware, _ options: UpdateOptions, _ onEvent: (UpdateEvent) -> Void)
        async throws(UpdateError) -> UpdateSummary
    {
        let preferred = firmware.isMCUboot ? smp : dfu
        guard let route = preferred ?? dfu ?? smp else { preconditionFailure("\(description) carries no protocol") }
        return try await route(firmware, options, onEvent)
    }
}

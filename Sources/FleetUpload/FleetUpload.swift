package import DFUController
package import DFUTargetAdapter

/// Updates many devices with the same firmware at once: one ``DFUController`` and one ``DFUTargetAdapter`` per
/// device, each over its own transport, at most `parallel` at a time per lane (the others wait their turn).
///
/// Every device is isolated: a failure ends only its own session. Cancelling the task that runs ``run(onEvent:)``
/// (Ctrl-C in the CLI) cancels every running session, whose controller then sends its own Abort (Secure) or Reset
/// (legacy) before the session ends, so each device stays resumable; devices still waiting are not started.
///
/// The module holds no I/O of its own: the transport factory decides what a device is (BlueZ on a shared client,
/// the in-process simulator, a serial port).
package struct FleetUpload<Transport: GATTTransport>: Sendable {
    /// Opens the transport to a device: called once per device, in the device's own task, when its turn comes.
    package typealias TransportFactory = @Sendable (_ index: Int, _ device: FleetDevice) async throws -> Transport

    /// The devices, in the order given (results keep this order).
    package let devices: [FleetDevice]
    private let firmware: DFUFirmware
    private let configuration: DFUConfiguration
    private let parallel: Int
    private let makeTransport: TransportFactory

    /// Creates a fleet update.
    ///
    /// - Parameters:
    ///   - devices: The devices to update, each once.
    ///   - firmware: The parts every device gets.
    ///   - configuration: The engine's policy, the same for every device.
    ///   - parallel: The most sessions running at once on one lane (at least 1).
    ///   - makeTransport: Opens the transport to a device.
    package init(
        devices: [FleetDevice], firmware: DFUFirmware, configuration: DFUConfiguration, parallel: Int,
        makeTransport: @escaping TransportFactory
    ) {
        self.devices = devices
        self.firmware = firmware
        self.configuration = configuration
        self.parallel = max(1, parallel)
        self.makeTransport = makeTransport
    }

    /// Runs every device's update to its end.
    ///
    /// - Parameter onEvent: Receives each device's events (by index into ``devices``); called from the devices'
    ///   tasks, concurrently, so it must be safe to call from several tasks at once.
    /// - Returns: One outcome per device, in the order of ``devices``.
    package func run(onEvent: @escaping @Sendable (_ index: Int, _ event: FleetEvent) -> Void) async -> [FleetOutcome] {
        await FleetScheduler.run(
            devices, parallel: parallel, notStarted: .notStarted,
            session: { index, device in await session(index, device, onEvent: onEvent) },
            finished: { index, outcome in onEvent(index, .finished(outcome)) })
    }

    /// One device's whole session.
    private func session(
        _ index: Int, _ device: FleetDevice, onEvent: @Sendable (Int, FleetEvent) -> Void
    ) async -> FleetOutcome {
        onEvent(index, .started)
        let transport: Transport
        do {
            transport = try await makeTransport(index, device)
        } catch {
            return .notOpened(error)
        }
        let controller = DFUController(firmware: firmware, target: device.address, configuration: configuration)
        let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { event in
            onEvent(index, .session(event))
        }
        return FleetOutcome(outcome)
    }
}

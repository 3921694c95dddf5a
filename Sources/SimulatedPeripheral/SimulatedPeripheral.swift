package import BlueZ
import DBus
package import DFUSimulator

/// Serves one `DFUSimulator.SimulatedDevice` on one adapter through BlueZ: its GATT database as a GATT
/// application (`GattManager1.RegisterApplication`) and its advertisement (`LEAdvertisingManager1`), so that a
/// real BLE central, or a BlueZ stand-in's central adapter, can run a DFU against it.
///
/// The device keeps its own virtual time, driven by the wall clock: every request first lets the device catch
/// up, and a timer thread wakes it at its next deadline (a flash write finishing, a reset). Connections are
/// taken from BlueZ's `Device1.Connected` on the adapter. When the device reboots into another mode, the old
/// application and advertisement are unregistered and the new mode's are registered, on the adapter whose
/// address the new advertisement wants if there is one (a Secure bootloader at address + 1), else on the same
/// adapter.
///
/// What it deliberately does not do: pairing, Service Changed, GAP and DIS services (bluetoothd adds those
/// itself), or more than one link at a time.
package final class SimulatedPeripheral: Sendable {
    private let client: BlueZClient
    private let adapter: AdapterInfo
    private let device: SimulatedDevice
    private let options: SimulatedPeripheralOptions
    private let actions: AsyncStream<ControlAction>
    private let continuation: AsyncStream<ControlAction>.Continuation

    /// What is registered with BlueZ.
    private struct Registration {
        var adapter: AdapterInfo
        var database: GATTDatabase
        var exported: [String] = []
        var hasApplication = false
        var hasAdvertisement = false
    }

    /// Prepares to serve `device`; nothing happens on the bus until ``run(onEvent:)``.
    ///
    /// - Parameters:
    ///   - client: The BlueZ connection (its bus connection exports the objects).
    ///   - adapter: The adapter to register on first.
    ///   - device: The simulated device as made, not yet driven: advertising at time zero (its clock restarts
    ///     with the wall clock here; a device that is not advertising is a programmer error).
    ///   - options: MTU and `Acquire*` support.
    package init(
        client: BlueZClient, adapter: AdapterInfo, device: SimulatedDevice,
        options: SimulatedPeripheralOptions = SimulatedPeripheralOptions()
    ) {
        precondition(device.advertisement != nil, "a simulated device that does not advertise cannot be served")
        self.client = client
        self.adapter = adapter
        self.device = device
        self.options = options
        (actions, continuation) = AsyncStream.makeStream(of: ControlAction.self)
    }

    /// Makes `run(onEvent:)` unregister everything and return; callable from any thread, also from `onEvent`.
    package func stop() {
        continuation.yield(.stop)
    }

    /// Registers the device and serves it until ``stop()`` is called or the task is cancelled; then unregisters.
    ///
    /// Call it once.
    ///
    /// - Parameter onEvent: Receives every ``SimulatedPeripheralEvent`` in order; it runs on whichever thread
    ///   the event happened on, with the device locked, so it must return quickly and must not wait for the
    ///   peripheral.
    /// - Throws: ``BlueZTransport/BlueZError`` when BlueZ refuses a registration or the bus goes away.
    package func run(onEvent: @escaping @Sendable (SimulatedPeripheralEvent) -> Void) async throws(BlueZError) {
        let events = try await client.events()
        let core = PeripheralCore(
            connection: client.connection, device: device, adapterPath: adapter.path, options: options,
            actions: continuation, onEvent: onEvent)
        core.start()
        let continuation = self.continuation
        let outcome = await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group -> (Registration?, BlueZError?) in
                group.addTask {
                    for await event in events { Self.observe(event, core) }
                    // The stream ends early only when the bus connection is gone.
                    if !Task.isCancelled { continuation.yield(.connectionLost) }
                }
                let outcome = await serve(core, onEvent: onEvent)
                group.cancelAll()
                return outcome
            }
        } onCancel: {
            continuation.yield(.stop)
        }
        // Unregistering must happen also when this task was cancelled: a fresh task is not.
        let client = self.client
        await Task {
            if let registration = outcome.0 { await Self.unregister(registration, client: client, core: core) }
        }.value
        core.shutDown()
        if let error = outcome.1 { throw error }
    }

    /// Performs the core's actions in order until `stop`, a failed registration or the end of the stream.
    private func serve(
        _ core: PeripheralCore, onEvent: @Sendable (SimulatedPeripheralEvent) -> Void
    ) async -> (Registration?, BlueZError?) {
        var registration: Registration?
        var adapter = self.adapter
        for await action in actions {
            switch action {
            case .register(let database):
                if let current = registration { await Self.unregister(current, client: client, core: core) }
                registration = nil
                do {
                    adapter = try await chooseAdapter(for: database.advertisement, current: adapter, onEvent: onEvent)
                    core.useAdapter(adapter.path)
                    var new = Registration(adapter: adapter, database: database)
                    defer { registration = new }
                    try await register(&new, core)
                    onEvent(
                        .registered(
                            PeripheralRegistration(
                                adapter: adapter, advertisement: database.advertisement,
                                serviceUUIDs: database.serviceUUIDs, roles: database.roles)))
                } catch {
                    return (registration, error)
                }
            case .disconnect(let central):
                do {
                    try await client.call(path: central, interface: BlueZInterface.device, member: "Disconnect")
                } catch {
                    core.disconnectFailed(central)
                    onEvent(.warning("cannot disconnect '\(central)': \(error)"))
                }
            case .withdraw:
                if let current = registration { await Self.unregister(current, client: client, core: core) }
                registration = nil
            case .stop:
                return (registration, nil)
            case .connectionLost:
                return (registration, .bus(.disconnected))
            }
        }
        return (registration, nil)
    }

    /// The adapter whose address `advertisement` wants, if a powered one exists; else `current`.
    private func chooseAdapter(
        for advertisement: Advertisement, current: AdapterInfo, onEvent: (SimulatedPeripheralEvent) -> Void
    ) async throws(BlueZError) -> AdapterInfo {
        let wanted = advertisement.address.description
        guard current.address?.description != wanted else { return current }
        let adapters = try await client.managedObjects().adapters
        if let match = adapters.first(where: { $0.address?.description == wanted && $0.isPowered }) { return match }
        onEvent(.addressUnavailable(wanted: advertisement.address, adapter: current))
        return current
    }

    /// Exports the database's objects and registers the application (unless empty) and the advertisement.
    private func register(_ registration: inout Registration, _ core: PeripheralCore) async throws(BlueZError) {
        let database = registration.database
        let adapterPath = registration.adapter.path
        for (path, _) in database.objects {
            do {
                try await client.connection.export(path: path) { core.handle($0) }
            } catch {
                throw BlueZError(error)
            }
            registration.exported.append(path)
        }
        if !database.isEmpty {
            try await client.call(
                path: adapterPath, interface: BlueZInterface.gattManager, member: "RegisterApplication",
                arguments: [.objectPath(database.root), .propertyDictionary([:])])
            registration.hasApplication = true
        }
        try await client.call(
            path: adapterPath, interface: BlueZInterface.advertisingManager, member: "RegisterAdvertisement",
            arguments: [.objectPath(database.advertisementPath), .propertyDictionary([:])])
        registration.hasAdvertisement = true
    }

    /// Undoes a registration, as far as it got; BlueZ's refusals are ignored (it may have dropped the objects
    /// already, for instance when the adapter went away).
    private static func unregister(_ registration: Registration, client: BlueZClient, core: PeripheralCore) async {
        let database = registration.database
        let adapterPath = registration.adapter.path
        if registration.hasAdvertisement {
            _ = try? await client.call(
                path: adapterPath, interface: BlueZInterface.advertisingManager, member: "UnregisterAdvertisement",
                arguments: [.objectPath(database.advertisementPath)])
        }
        if registration.hasApplication {
            _ = try? await client.call(
                path: adapterPath, interface: BlueZInterface.gattManager, member: "UnregisterApplication",
                arguments: [.objectPath(database.root)])
        }
        for path in registration.exported { await client.connection.unexport(path: path) }
        core.retire(database)
    }

    /// Passes a central's `Connected` changes on the peripheral's adapter to the core.
    private static func observe(_ event: BlueZEvent, _ core: PeripheralCore) {
        switch event {
        case .interfacesAdded(let path, let interfaces):
            if interfaces[BlueZInterface.device]?["Connected"]?.boolValue == true {
                core.centralChanged(path, isConnected: true)
            }
        case .propertiesChanged(let path, BlueZInterface.device, let changed, _):
            if let isConnected = changed["Connected"]?.boolValue { core.centralChanged(path, isConnected: isConnected) }
        case .interfacesRemoved(let path, let interfaces):
            if interfaces.contains(BlueZInterface.device) { core.centralChanged(path, isConnected: false) }
        case .propertiesChanged:
            return
        }
    }
}

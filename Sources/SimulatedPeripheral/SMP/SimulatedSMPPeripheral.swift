package import BlueZ
import DBus
package import SMPSimulator
import Synchronization

/// Serves one `SMPSimulator.SimulatedSMPDevice` (a Zephyr application with MCUmgr on MCUboot) through BlueZ:
/// the SMP service as a GATT application and an advertisement with the SMP service UUID and a name, as Zephyr's
/// `smp_svr` sample does.
///
/// Requests arrive as writes without response on SMP's characteristic (`WriteValue`, or records of an
/// `AcquireWrite` socket) and are reassembled by the header's length; answers go out as notifications of at most
/// MTU − 3 bytes (`PropertiesChanged`, or an `AcquireNotify` socket). A reset is answered, then after
/// ``SMPPeripheralOptions/resetDelay`` the device drops the link, stops advertising, reboots (MCUboot swaps as the
/// slots' trailers ask, taking the swap time unless told not to) and advertises again.
///
/// What it deliberately does not do: pairing, more than one link, other MCUmgr transports.
package final class SimulatedSMPPeripheral: Sendable {
    private let client: BlueZClient
    private let adapter: AdapterInfo
    private let options: SMPPeripheralOptions
    private let initialDevice: SimulatedSMPDevice
    private let actions: AsyncStream<SMPControlAction>
    private let continuation: AsyncStream<SMPControlAction>.Continuation
    private let stopping = StopSignal()
    private let final = Mutex<(device: SimulatedSMPDevice, tally: SMPUploadTally)?>(nil)

    /// Prepares to serve `device` on `adapter`; nothing happens on the bus until ``run(onEvent:)``.
    ///
    /// - Parameters:
    ///   - client: The BlueZ connection (its bus connection exports the objects).
    ///   - adapter: The adapter to register on.
    ///   - device: The simulated device.
    ///   - options: Name, MTU, socket paths, timing and faults.
    package init(
        client: BlueZClient, adapter: AdapterInfo, device: SimulatedSMPDevice,
        options: SMPPeripheralOptions = SMPPeripheralOptions()
    ) {
        self.client = client
        self.adapter = adapter
        self.options = options
        initialDevice = device
        (actions, continuation) = AsyncStream.makeStream(of: SMPControlAction.self)
    }

    /// Makes `run(onEvent:)` unregister everything and return; callable from any thread, also from `onEvent`.
    package func stop() {
        stopping.raise()
        continuation.yield(.stop)
    }

    /// The device as it was when ``run(onEvent:)`` returned (`nil` before).
    package var device: SimulatedSMPDevice? { final.withLock { $0?.device } }

    /// The image upload tally of the whole run, when `run(onEvent:)` returned (`nil` before).
    package var tally: SMPUploadTally? { final.withLock { $0?.tally } }

    /// Registers the device and serves it until ``stop()`` or cancellation; then unregisters.
    ///
    /// Call it once.
    ///
    /// - Parameter onEvent: Receives every ``SMPPeripheralEvent`` in order, on whichever thread it happened, with the
    ///   device locked: it must return quickly and must not call back into the peripheral.
    /// - Throws: `BlueZError` when BlueZ refuses a registration or the bus goes away.
    package func run(onEvent: @escaping @Sendable (SMPPeripheralEvent) -> Void) async throws(BlueZError) {
        let events = try await client.events()
        let core = SMPPeripheralCore(
            connection: client.connection, device: initialDevice, adapterPath: adapter.path, options: options,
            actions: continuation, onEvent: onEvent)
        core.start()
        let continuation = self.continuation
        let stopping = self.stopping
        continuation.yield(.register(generation: 1))
        let outcome = await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group -> (Int?, BlueZError?) in
                group.addTask {
                    for await event in events { Self.observe(event, core) }
                    if !Task.isCancelled { continuation.yield(.connectionLost) }
                }
                let outcome = await serve(core, onEvent: onEvent)
                group.cancelAll()
                return outcome
            }
        } onCancel: {
            stopping.raise()
            continuation.yield(.stop)
        }
        let client = self.client
        let adapter = self.adapter
        await Task {
            // A device that goes away (powered off, or `--exit-after` reached) drops its link first: a real one does
            // not keep a link whose GATT service is gone, answering the central's descriptor writes with Invalid
            // Handle (Tests/VM/README.md, "AcquireNotify whose descriptor write fails").
            if let central = core.central {
                core.state.withLock { state in
                    state.disconnecting.insert(central)
                    core.endLink(&state)
                }
                await self.disconnect(central, core: core, onEvent: onEvent)
            }
            if let generation = outcome.0 { await Self.unregister(generation, client: client, adapter: adapter) }
        }.value
        core.shutDown()
        let ending = core.state.withLock { ($0.device, $0.tally) }
        final.withLock { $0 = ending }
        if let error = outcome.1 { throw error }
    }

    /// Performs the core's actions in order; returns the registered generation (if any) and an error.
    private func serve(_ core: SMPPeripheralCore, onEvent: @Sendable (SMPPeripheralEvent) -> Void) async -> (
        Int?, BlueZError?
    ) {
        var registered: Int?
        for await action in actions {
            switch action {
            case .register(let generation):
                do {
                    registered = generation
                    try await register(generation, core)
                    core.resumed()
                    onEvent(
                        .registered(
                            adapter: adapter, name: options.name, serviceUUIDs: [LinkUUIDs.smpService]))
                } catch {
                    return (registered, error)
                }
            case .disconnect(let central):
                await disconnect(central, core: core, onEvent: onEvent)
            case .reset(let delay):
                if delay > .zero { await stopping.pause(for: delay) }
                // Stopped while waiting: `.stop` is next in the stream.
                guard !stopping.isRaised else { continue }
                if let central = core.central {
                    core.state.withLock { state in
                        state.disconnecting.insert(central)
                        core.endLink(&state)
                    }
                    await disconnect(central, core: core, onEvent: onEvent)
                }
                if let generation = registered {
                    await Self.unregister(generation, client: client, adapter: adapter)
                    registered = nil
                }
                let boot = core.reboot() + options.bootTime
                await stopping.pause(for: boot)
                guard !stopping.isRaised else { continue }
                continuation.yield(.register(generation: core.generation))
            case .stop:
                return (registered, nil)
            case .connectionLost:
                return (registered, .bus(.disconnected))
            }
        }
        return (registered, nil)
    }

    private func disconnect(
        _ central: String, core: SMPPeripheralCore, onEvent: @Sendable (SMPPeripheralEvent) -> Void
    ) async {
        do {
            try await client.call(path: central, interface: BlueZInterface.device, member: "Disconnect")
        } catch {
            _ = core.state.withLock { $0.disconnecting.remove(central) }
            onEvent(.warning("cannot disconnect '\(central)': \(error)"))
        }
    }

    /// Exports the generation's objects and registers the application and the advertisement.
    private func register(_ generation: Int, _ core: SMPPeripheralCore) async throws(BlueZError) {
        for path in SMPPeripheralCore.objects(generation) {
            do {
                try await client.connection.export(path: path) { core.handle($0) }
            } catch {
                throw BlueZError(error)
            }
        }
        try await client.call(
            path: adapter.path, interface: BlueZInterface.gattManager, member: "RegisterApplication",
            arguments: [.objectPath(SMPPeripheralCore.root(generation)), .propertyDictionary([:])])
        try await client.call(
            path: adapter.path, interface: BlueZInterface.advertisingManager, member: "RegisterAdvertisement",
            arguments: [.objectPath(SMPPeripheralCore.advertisement(generation)), .propertyDictionary([:])])
    }

    /// Undoes a registration; BlueZ's refusals are ignored (it may have dropped the objects already).
    private static func unregister(_ generation: Int, client: BlueZClient, adapter: AdapterInfo) async {
        _ = try? await client.call(
            path: adapter.path, interface: BlueZInterface.advertisingManager, member: "UnregisterAdvertisement",
            arguments: [.objectPath(SMPPeripheralCore.advertisement(generation))])
        _ = try? await client.call(
            path: adapter.path, interface: BlueZInterface.gattManager, member: "UnregisterApplication",
            arguments: [.objectPath(SMPPeripheralCore.root(generation))])
        for path in SMPPeripheralCore.objects(generation) { await client.connection.unexport(path: path) }
    }

    /// Passes a central's `Connected` changes on the peripheral's adapter to the core.
    private static func observe(_ event: BlueZEvent, _ core: SMPPeripheralCore) {
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

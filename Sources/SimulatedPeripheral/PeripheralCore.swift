import BlueZ
import DBus
import DFUSimulator
import Synchronization

/// What the control task does on the bus for the core, in the order the core asked.
enum ControlAction: Sendable {
    /// Unregister what is registered, then export and register this database and its advertisement.
    case register(GATTDatabase)
    /// Ask BlueZ to drop the link to this central (`Device1.Disconnect` on the peripheral's adapter).
    case disconnect(central: String)
    /// Unregister the application and advertisement: the device is resetting and advertises nothing until it
    /// boots (a real device cannot be connected to then; a registration left in place would take connections).
    case withdraw
    /// Unregister everything and end.
    case stop
    /// The bus connection is gone: end with an error.
    case connectionLost
}

/// The simulated device and everything tied to its link, behind one lock: D-Bus handlers (on the connection's
/// thread), the packet readers, the timer thread and the BlueZ event task all go through it, and the device's
/// outputs are delivered while it is held, so replies and notifications leave in the device's order.
final class PeripheralCore: Sendable {
    /// The current link.
    struct Link {
        /// The central's `Device1` object on the peripheral's adapter.
        let central: String
        /// The negotiated ATT MTU.
        var mtu: Int
    }

    struct State {
        var device: SimulatedDevice
        /// The adapter the device is registered on; centrals are `Device1` objects below it.
        var adapterPath: String
        var generation: Int
        /// The database of the current mode (the one registered last).
        var database: GATTDatabase
        /// Every exported object, of every database not yet unexported.
        var objects: [String: ExportedObject] = [:]
        var link: Link?
        /// Centrals we asked BlueZ to disconnect and that it still reports connected.
        var disconnecting: Set<String> = []
        /// Roles notifying through `PropertiesChanged` (`StartNotify`).
        var notifying: Set<CharacteristicRole> = []
        var writeSockets: [CharacteristicRole: AcquiredSocket] = [:]
        var notifySockets: [CharacteristicRole: AcquiredSocket] = [:]
        /// The last value notified per characteristic path (`Value`).
        var values: [String: [UInt8]] = [:]
        /// Calls the device never answered (a stalled device): failed when the link goes.
        var stalledCalls: [UInt64] = []
        /// Calls that need the link and came before BlueZ's `Connected` signal was processed.
        var awaitingLink = CallsAwaitingLink<GATTDatabase.Characteristic>()
        var logCursor = 0
        var activated: [FirmwareType: [UInt8]] = [:]
    }

    let connection: BusConnection
    let options: SimulatedPeripheralOptions
    let timer = DeadlineTimer()
    let state: Mutex<State>
    private let origin = ContinuousClock.now
    let actions: AsyncStream<ControlAction>.Continuation
    let onEvent: @Sendable (SimulatedPeripheralEvent) -> Void
    let descriptors = HandedOutDescriptors()

    init(
        connection: BusConnection, device: SimulatedDevice, adapterPath: String, options: SimulatedPeripheralOptions,
        actions: AsyncStream<ControlAction>.Continuation,
        onEvent: @escaping @Sendable (SimulatedPeripheralEvent) -> Void
    ) {
        self.connection = connection
        self.options = options
        self.actions = actions
        self.onEvent = onEvent
        guard let advertisement = device.advertisement else {
            preconditionFailure("a simulated device that does not advertise cannot be served")
        }
        let database = GATTDatabase(generation: 1, roles: device.availableRoles, advertisement: advertisement)
        var initial = State(device: device, adapterPath: adapterPath, generation: 1, database: database)
        for (path, object) in database.objects { initial.objects[path] = object }
        initial.logCursor = device.log.count
        state = Mutex(initial)
    }

    /// Starts the timer thread and asks for the first registration.
    func start() {
        let database = state.withLock { $0.database }
        timer.start(deadline: { [self] in nextDeadline() }, fire: { [self] in timerFired() })
        actions.yield(.register(database))
    }

    /// Ends the link's sockets and the timer; pending calls fail.
    func shutDown() {
        state.withLock { state in
            endLink(&state, notifyingSignals: false)
        }
        timer.stop()
        descriptors.closeDirect()
    }

    // MARK: Time

    /// The device's time: elapsed since the core was made.
    ///
    /// Read only under the lock, so that it never goes back between two inputs.
    func now() -> Duration { origin.duration(to: .now) }

    private func nextDeadline() -> ContinuousClock.Instant? {
        state.withLock { state in
            let due = [state.device.nextEventTime, state.awaitingLink.nextDeadline].compactMap { $0 }.min()
            return due.map { origin.advanced(by: $0) }
        }
    }

    private func timerFired() {
        state.withLock { state in
            let time = now()
            deliver(state.device.advance(to: time), &state)
            state.awaitingLink.refuse(dueAt: time, on: connection)
            finish(&state)
        }
    }

    // MARK: Inputs from BlueZ's object tree

    /// Which adapter the device is registered on now.
    func useAdapter(_ path: String) {
        state.withLock { $0.adapterPath = path }
    }

    /// A `Device1` object changed its `Connected` property (or appeared with it, or went away).
    func centralChanged(_ central: String, isConnected: Bool) {
        state.withLock { state in
            guard central.hasPrefix(state.adapterPath + "/") else { return }
            if isConnected {
                guard !state.disconnecting.contains(central) else { return }
                let time = now()
                deliver(state.device.advance(to: time), &state)
                connect(central, &state, at: time)
            } else {
                state.disconnecting.remove(central)
                guard state.link?.central == central else { return }
                let time = now()
                deliver(state.device.advance(to: time), &state)
                endLink(&state, notifyingSignals: true)
                deliver(state.device.disconnect(at: time), &state)
            }
            finish(&state)
        }
        timer.reschedule()
    }

    /// A `Disconnect` the core asked for failed: BlueZ keeps reporting the central, so stop waiting for it.
    func disconnectFailed(_ central: String) {
        state.withLock { _ = $0.disconnecting.remove(central) }
    }

    /// Removes a database's objects once they are no longer exported.
    func retire(_ database: GATTDatabase) {
        state.withLock { state in
            for (path, _) in database.objects { state.objects.removeValue(forKey: path) }
            for characteristic in database.characteristics { state.values.removeValue(forKey: characteristic.path) }
        }
    }

    // MARK: Link

    /// Takes `central` as the link when there is none: the central's GATT request arrived before BlueZ's
    /// `Connected` signal was processed (they come on two paths), or BlueZ never sent one.
    func adopt(_ central: String?, _ state: inout State, at time: Duration) {
        guard let central, state.link == nil, central.hasPrefix(state.adapterPath + "/"),
            !state.disconnecting.contains(central)
        else { return }
        connect(central, &state, at: time)
    }

    private func connect(_ central: String, _ state: inout State, at time: Duration) {
        guard state.link == nil else {
            if state.link?.central != central {
                onEvent(.warning("a second central, '\(central)', connected; only one link is simulated"))
            }
            return
        }
        let events = state.device.connect(mtu: options.mtu, at: time)
        let negotiated = events.lazy.compactMap { event -> Int? in
            if case .connected(let mtu) = event.output { mtu } else { nil }
        }.first
        if let negotiated {
            state.link = Link(central: central, mtu: negotiated)
            for characteristic in state.database.characteristics {
                post(characteristic.path, ["MTU": .uint16(UInt16(clamping: negotiated))])
            }
        }
        deliver(events, &state)
        if negotiated != nil { handleCallsAwaitingLink(&state) }
        if negotiated == nil {
            // The device is not advertising (it resets): a real one would not have accepted the connection.
            state.disconnecting.insert(central)
            actions.yield(.disconnect(central: central))
        }
    }

    /// Forgets the link: sockets close, notifications stop, calls the device never answered fail.
    func endLink(_ state: inout State, notifyingSignals: Bool) {
        resetSubscriptions(&state, notifyingSignals: notifyingSignals)
        for id in state.stalledCalls {
            connection.reply(toCall: id, with: .error(name: "org.bluez.Error.Failed", message: "Not connected"))
        }
        state.stalledCalls.removeAll()
        state.awaitingLink.refuse(dueAt: nil, on: connection)
        guard let link = state.link else { return }
        state.link = nil
        onEvent(.disconnected(central: link.central))
    }

    /// Closes the acquired sockets and ends `StartNotify` subscriptions (BlueZ resets them on a new link; bluezoo
    /// would not start notifying again while it thinks `Notifying` is true).
    func resetSubscriptions(_ state: inout State, notifyingSignals: Bool) {
        for socket in state.writeSockets.values { socket.close() }
        for socket in state.notifySockets.values { socket.close() }
        state.writeSockets.removeAll()
        state.notifySockets.removeAll()
        if notifyingSignals {
            for role in state.notifying {
                guard let path = state.database.characteristic(role)?.path else { continue }
                post(path, ["Notifying": .bool(false)])
            }
        }
        state.notifying.removeAll()
    }

    // MARK: Packets

    /// Feeds every record waiting on the write sockets to the device, as ATT Write Commands.
    func drainPackets(_ state: inout State, at time: Duration) {
        for (role, socket) in state.writeSockets.sorted(by: { $0.key.uuid < $1.key.uuid }) {
            for record in socket.receiveAvailable() {
                deliver(state.device.write(role: role, bytes: record, withResponse: false, at: time), &state)
            }
        }
    }

    /// Opens the write socket of `role` and starts reading it.
    func openWriteSocket(_ role: CharacteristicRole, _ state: inout State) -> AcquiredSocket? {
        if let socket = state.writeSockets[role] { return socket }
        guard let socket = AcquiredSocket() else { return nil }
        state.writeSockets[role] = socket
        socket.startReading { [self] in
            let isWanted = self.state.withLock { state -> Bool in
                guard state.writeSockets[role] === socket else { return false }
                drainPackets(&state, at: now())
                finish(&state)
                return true
            }
            timer.reschedule()
            return isWanted
        }
        return socket
    }

    /// Opens the notification socket of `role`; what comes back on it (bluezoo's indication confirmations) is
    /// read and dropped.
    func openNotifySocket(_ role: CharacteristicRole, _ state: inout State) -> AcquiredSocket? {
        if let socket = state.notifySockets[role] { return socket }
        guard let socket = AcquiredSocket() else { return nil }
        state.notifySockets[role] = socket
        socket.startReading { [self] in
            self.state.withLock { state in
                guard state.notifySockets[role] === socket else { return false }
                _ = socket.receiveAvailable()
                return true
            }
        }
        return socket
    }

    // MARK: Bus output

    /// Emits `PropertiesChanged` for a characteristic.
    func post(_ path: String, _ changed: [String: DBusValue]) {
        connection.post(
            path: path, interface: BlueZInterface.properties, member: "PropertiesChanged",
            arguments: [.string(BlueZInterface.characteristic), .propertyDictionary(changed), .stringArray([])])
    }
}

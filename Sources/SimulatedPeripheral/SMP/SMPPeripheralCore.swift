import BlueZ
import DBus
import DFUSimulator
import SMP
import SMPSimulator
import Synchronization

/// What the control task does on the bus for the SMP core, in order.
enum SMPControlAction: Sendable {
    /// Export and register the SMP application and advertisement of this generation.
    case register(generation: Int)
    /// Drop the link to this central (`Device1.Disconnect` on the peripheral's adapter).
    case disconnect(central: String)
    /// Reset after `delay`: drop the link, withdraw, reboot, wait for MCUboot and the application, register again.
    case reset(after: Duration)
    /// Unregister everything and end.
    case stop
    /// The bus connection is gone: end with an error.
    case connectionLost
}

/// The SMP device and its link behind one lock: D-Bus handlers (on the connection's thread), the `AcquireWrite`
/// reader and the control task all go through it, and answers leave in the device's order.
final class SMPPeripheralCore: Sendable {
    struct State {
        var device: SimulatedSMPDevice
        var faults: SMPFaults
        var adapterPath: String
        var generation = 1
        /// The central's `Device1` path and the link's ATT MTU.
        var link: (central: String, mtu: Int)?
        /// Centrals we asked BlueZ to disconnect and that it may still report connected.
        var disconnecting: Set<String> = []
        /// Between a reset's answer and the registration after the boot: the device hears nothing.
        var isResetting = false
        var notifying = false
        /// Calls that need the link and came before BlueZ's `Connected` signal was processed.
        var awaitingLink = CallsAwaitingLink<Void>()
        var writeSocket: AcquiredSocket?
        var notifySocket: AcquiredSocket?
        /// Bytes of a request not yet complete (Zephyr `smp_reassembly.c`).
        var pending: [UInt8] = []
        var value: [UInt8] = []
        var tally = SMPUploadTally()
        /// The offset the device's answers say it expects next (0 after a boot).
        var expectedOffset = 0
        var logCursor = 0
    }

    let connection: BusConnection
    let options: SMPPeripheralOptions
    let state: Mutex<State>
    let actions: AsyncStream<SMPControlAction>.Continuation
    let onEvent: @Sendable (SMPPeripheralEvent) -> Void
    let descriptors = HandedOutDescriptors()
    /// Refuses calls that waited for the link too long.
    let timer = DeadlineTimer()
    private let origin = ContinuousClock.now

    /// The root under which the SMP simulator's objects live.
    static let basePath = "/org/nrfloader/simulator/smp"

    init(
        connection: BusConnection, device: SimulatedSMPDevice, adapterPath: String, options: SMPPeripheralOptions,
        actions: AsyncStream<SMPControlAction>.Continuation,
        onEvent: @escaping @Sendable (SMPPeripheralEvent) -> Void
    ) {
        self.connection = connection
        self.options = options
        self.actions = actions
        self.onEvent = onEvent
        var device = device
        for case .respond(let id, let rc, _, _) in options.faults.faults {
            device.forceAnswer(toCommand: id, rc: Int(rc))
        }
        state = Mutex(
            State(
                device: device, faults: SMPFaults(plan: options.faults), adapterPath: adapterPath,
                logCursor: device.log.count))
    }

    /// Starts the timer thread.
    func start() {
        timer.start(
            deadline: { [self] in state.withLock { $0.awaitingLink.nextDeadline }.map { origin.advanced(by: $0) } },
            fire: { [self] in
                state.withLock { state in state.awaitingLink.refuse(dueAt: now(), on: connection) }
            })
    }

    /// The core's time: elapsed since it was made.
    func now() -> Duration { origin.duration(to: .now) }

    // MARK: Paths

    static func root(_ generation: Int) -> String { "\(basePath)/app\(generation)" }
    static func service(_ generation: Int) -> String { root(generation) + "/service0" }
    static func characteristic(_ generation: Int) -> String { service(generation) + "/char0" }
    static func advertisement(_ generation: Int) -> String { "\(basePath)/advertisement\(generation)" }

    /// The objects of one registration, root first.
    static func objects(_ generation: Int) -> [String] {
        [root(generation), service(generation), characteristic(generation), advertisement(generation)]
    }

    // MARK: Link

    /// A `Device1` object changed its `Connected` property (or appeared with it, or went away).
    func centralChanged(_ central: String, isConnected: Bool) {
        state.withLock { state in
            guard central.hasPrefix(state.adapterPath + "/") else { return }
            if isConnected {
                guard !state.disconnecting.contains(central) else { return }
                connect(central, &state)
            } else {
                state.disconnecting.remove(central)
                guard state.link?.central == central else { return }
                endLink(&state)
            }
        }
    }

    /// Takes the central as the link when a request comes before BlueZ's `Connected` signal (two paths), or when
    /// BlueZ sent none.
    ///
    /// Not while the device resets: a write still queued from the link the reset dropped is no new connection.
    /// Taking it for one made ``connect(_:_:)`` refuse the central and mark it disconnecting, and no `Connected =
    /// false` ever came to clear the mark (the link was down already), so every later connection of that central
    /// was ignored ("StartNotify on smp: Not connected" three times over bluezoo, under load).
    private func adopt(_ central: String?, _ state: inout State) {
        guard let central, state.link == nil, !state.isResetting, central.hasPrefix(state.adapterPath + "/"),
            !state.disconnecting.contains(central)
        else { return }
        connect(central, &state)
    }

    private func connect(_ central: String, _ state: inout State) {
        guard state.link == nil else {
            if state.link?.central != central {
                onEvent(.warning("a second central, '\(central)', connected; only one link is simulated"))
            }
            return
        }
        guard !state.isResetting else {
            // A resetting device would not have accepted the connection.
            state.disconnecting.insert(central)
            actions.yield(.disconnect(central: central))
            return
        }
        let mtu = min(options.mtu, state.faults.mtuCap ?? 517)
        state.link = (central, mtu)
        state.pending.removeAll()
        connection.post(
            path: Self.characteristic(state.generation), interface: BlueZInterface.properties,
            member: "PropertiesChanged",
            arguments: [
                .string(BlueZInterface.characteristic), .propertyDictionary(["MTU": .uint16(UInt16(mtu))]),
                .stringArray([]),
            ])
        onEvent(.connected(central: central, mtu: mtu))
        for (call, _) in state.awaitingLink.takeAll() {
            descriptors.answerLate(call, on: connection) { characteristicCall(call, &state) }
        }
    }

    /// Forgets the link: sockets close, notifications stop, a partial request is dropped.
    func endLink(_ state: inout State) {
        state.writeSocket?.close()
        state.notifySocket?.close()
        state.writeSocket = nil
        state.notifySocket = nil
        if state.notifying {
            state.notifying = false
            post(["Notifying": .bool(false)], state)
        }
        state.pending.removeAll()
        state.faults.linkDropped()
        state.awaitingLink.refuse(dueAt: nil, on: connection)
        guard let link = state.link else { return }
        state.link = nil
        onEvent(
            .disconnected(
                central: link.central,
                slots: SMPSlots(state.device.slots),
                tally: state.tally))
    }

    /// Drops the link from the device's side.
    func dropLink(_ state: inout State) {
        guard let central = state.link?.central else { return }
        state.disconnecting.insert(central)
        endLink(&state)
        actions.yield(.disconnect(central: central))
    }

    /// Reboots the device (the control task calls this once the link is gone and the advertisement withdrawn).
    ///
    /// - Returns: How long MCUboot takes before the application runs (swap time, when the options take it).
    func reboot() -> Duration {
        state.withLock { state in
            let swap = options.takesSwapTime ? state.device.nextBootSwapDuration : .zero
            let swaps = state.device.swapCount
            state.device.reboot()
            state.expectedOffset = 0
            state.generation += 1
            let description = state.device.log.last ?? "boot"
            state.logCursor = state.device.log.count
            onEvent(
                .booted(
                    swapped: state.device.swapCount > swaps, description: description,
                    slots: SMPSlots(state.device.slots)))
            return swap
        }
    }

    /// The device runs again and advertises: it hears requests from now on.
    func resumed() {
        state.withLock { $0.isResetting = false }
    }

    /// The central the link is with, if any.
    var central: String? { state.withLock { $0.link?.central } }

    /// The current registration's generation.
    var generation: Int { state.withLock { $0.generation } }

    /// Ends the link's sockets; the run is over.
    func shutDown() {
        state.withLock { endLink(&$0) }
        timer.stop()
        descriptors.closeDirect()
    }

    // MARK: Bus output

    func post(_ changed: [String: DBusValue], _ state: State) {
        connection.post(
            path: Self.characteristic(state.generation), interface: BlueZInterface.properties,
            member: "PropertiesChanged",
            arguments: [.string(BlueZInterface.characteristic), .propertyDictionary(changed), .stringArray([])])
    }

    /// Opens the `AcquireWrite` socket and starts reading it: each record is one write command.
    func openWriteSocket(_ state: inout State) -> AcquiredSocket? {
        if let socket = state.writeSocket { return socket }
        guard let socket = AcquiredSocket() else { return nil }
        state.writeSocket = socket
        socket.startReading { [self] in
            self.state.withLock { state in
                guard state.writeSocket === socket else { return false }
                for record in socket.receiveAvailable() { received(record, &state) }
                return true
            }
        }
        return socket
    }

    /// Opens the `AcquireNotify` socket; what comes back on it is read and dropped.
    func openNotifySocket(_ state: inout State) -> AcquiredSocket? {
        if let socket = state.notifySocket { return socket }
        guard let socket = AcquiredSocket() else { return nil }
        state.notifySocket = socket
        socket.startReading { [self] in
            self.state.withLock { state in
                guard state.notifySocket === socket else { return false }
                _ = socket.receiveAvailable()
                return true
            }
        }
        return socket
    }

    /// Brings the link up to date before a request: the write socket's records first (they came before), then
    /// the central named in the options if there is no link yet.
    func prepare(_ state: inout State, _ options: [String: DBusValue]) {
        if let socket = state.writeSocket {
            for record in socket.receiveAvailable() { received(record, &state) }
        }
        adopt(options["device"]?.stringValue, &state)
    }
}

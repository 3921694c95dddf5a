package import DFUController
package import DFUTargetAdapter
package import DeviceLink
import Synchronization

/// A `GATTTransport` to a ``SimulatedDevice`` over a modelled BLE link, in virtual time.
///
/// This is `nrfloader upload --target sim` and the test bench of the DFU engine: the adapter drives the real
/// controller, the link model decides when each PDU arrives, and the simulated bootloader answers as Nordic's
/// does. With `speed` set, virtual time is also paced against the wall clock (1 = real time), so progress and
/// Ctrl-C behave as with a real device.
package final class SimulatedTransport: GATTTransport {
    package let clock: VirtualClock
    private let simulation: Mutex<Simulation>
    private let speed: Double?

    /// How long the central waits for an ATT response by default before it gives up on the link (ATT's 30 s
    /// transaction timeout, Core Specification Vol 3 Part F §3.3.3).
    package static let attTransactionTimeout = Duration.seconds(30)

    /// Creates a link to `device`.
    ///
    /// - Parameters:
    ///   - device: The simulated device, advertising.
    ///   - link: The radio link's timing.
    ///   - speed: `nil` to run as fast as possible; otherwise wall-clock pacing (1 = real time, 10 = ten times
    ///     faster).
    ///   - operationTimeout: The longest the central waits for one ATT response before it drops the link, as
    ///     BlueZ's transport waits `--timeout` (default: ATT's 30 s, ``attTransactionTimeout``).
    package init(
        device: SimulatedDevice, link: LinkModel = LinkModel(), speed: Double? = nil,
        operationTimeout: Duration = SimulatedTransport.attTransactionTimeout
    ) {
        clock = VirtualClock()
        simulation = Mutex(Simulation(device: device, link: link, operationTimeout: operationTimeout))
        self.speed = speed
    }

    /// The device as it is now: its installed and activated images, its log.
    package var device: SimulatedDevice { simulation.withLock { $0.device } }

    /// Bytes of attribute value written without response so far, over all connections.
    package var packetBytesWritten: Int { simulation.withLock { $0.packetBytesWritten } }

    /// ATT requests (writes with response, CCCD writes, reads) sent so far: the round trips of the update.
    package var requestCount: Int { simulation.withLock { $0.requestCount } }

    package func connect(_ request: ConnectionRequest, deadline: VirtualClock.Instant) async throws(LinkError)
        -> GATTConnection
    {
        try await run { (simulation) throws(LinkError) in
            try simulation.connect(request, deadline: deadline.offset)
        }
    }

    package func enableNotifications(_ characteristic: DFUCharacteristic) async throws(LinkError) {
        try await run { (simulation) throws(LinkError) in
            try simulation.request(.enableNotifications(try Simulation.role(characteristic)))
        }
    }

    package func write(_ characteristic: DFUCharacteristic, _ value: [UInt8]) async throws(LinkError) {
        try await run { (simulation) throws(LinkError) in
            try simulation.request(.write(try Simulation.role(characteristic), value))
        }
    }

    package func writeWithoutResponse(_ characteristic: DFUCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)
    {
        try await run { (simulation) throws(LinkError) in
            let role = try Simulation.role(characteristic)
            for packet in packets { try simulation.command(role, packet) }
        }
    }

    package func read(_ characteristic: DFUCharacteristic) async throws(LinkError) -> [UInt8] {
        try await run { (simulation) throws(LinkError) in
            try simulation.request(.read(try Simulation.role(characteristic))) ?? []
        }
    }

    package func disconnect() async {
        simulation.withLock { $0.disconnect() }
    }

    /// Waits for the next event in virtual time.
    ///
    /// Virtual time cannot be interrupted, so a cancelled task still gets its event or its deadline; only the
    /// wall-clock pacing stops, and the rest of the simulation runs at full speed.
    package func nextEvent(until deadline: VirtualClock.Instant) async throws(LinkError) -> GATTEvent? {
        try await run { (simulation) throws(LinkError) in simulation.nextEvent(until: deadline.offset) }
    }

    /// Runs one step of the simulation under the lock, moves the clock, and paces it against the wall clock.
    @discardableResult
    private func run<T: Sendable>(
        _ body: @Sendable (inout Simulation) throws(LinkError) -> T
    ) async throws(LinkError) -> T {
        let (result, before, after) = simulation.withLock { simulation in
            let before = simulation.now
            let result = Result { () throws(LinkError) in try body(&simulation) }
            return (result, before, simulation.now)
        }
        clock.advance(to: after)
        if let speed, speed > 0, after > before, !Task.isCancelled {
            try? await Task.sleep(for: (after - before) / speed)
        }
        return try result.get()
    }
}

/// The discrete-event simulation behind ``SimulatedTransport``: device inputs and central deliveries in time order.
struct Simulation: Sendable {
    enum Request: Sendable {
        case enableNotifications(CharacteristicRole)
        case write(CharacteristicRole, [UInt8])
        case read(CharacteristicRole)
    }

    private enum DeviceInput: Sendable {
        case request(Request)
        case command(CharacteristicRole, [UInt8])
    }

    private enum Response: Sendable {
        case done([UInt8]?)
        case failed(GATTFailure)
    }

    private enum Delivery: Sendable {
        case notification(CharacteristicRole, [UInt8])
        case response(Response)
        case linkDown(DisconnectReason)
    }

    private struct Timed<T: Sendable>: Sendable {
        var time: Duration
        var sequence: Int
        var connection: Int
        var item: T
    }

    private(set) var device: SimulatedDevice
    let link: LinkModel
    /// The longest one ATT request waits for its response.
    let operationTimeout: Duration
    private(set) var now = Duration.zero
    private(set) var packetBytesWritten = 0
    private(set) var requestCount = 0
    private var scheduler: LinkScheduler?
    private var connection = 0
    private var mtu = 23
    private var deviceInputs: [Timed<DeviceInput>] = []
    private var deliveries: [Timed<Delivery>] = []
    private var inbox: [GATTEvent] = []
    private var response: Response?
    private var sequence = 0

    init(device: SimulatedDevice, link: LinkModel, operationTimeout: Duration) {
        self.device = device
        self.link = link
        self.operationTimeout = operationTimeout
    }

    static func role(_ characteristic: DFUCharacteristic) throws(LinkError) -> CharacteristicRole {
        guard let role = CharacteristicRole.allCases.first(where: { $0.uuid == characteristic.uuid }) else {
            throw .failed("the simulator has no characteristic \(characteristic.uuid)")
        }
        return role
    }

    private static func characteristic(_ role: CharacteristicRole) -> DFUCharacteristic? {
        DFUCharacteristic.allCases.first { $0.uuid == role.uuid }
    }

    // MARK: Central operations

    mutating func connect(_ request: ConnectionRequest, deadline: Duration) throws(LinkError) -> GATTConnection {
        if scheduler != nil { disconnect() }
        inbox.removeAll()
        func matches(_ advertisement: Advertisement?) -> Bool {
            guard let advertisement else { return false }
            let address = advertisement.address.description.uppercased()
            return address == request.address.description.uppercased()
                || address == request.alternativeAddress?.description.uppercased()
                || (request.advertisedName != nil && advertisement.name == request.advertisedName)
        }
        guard run(until: deadline, stopWhen: { matches($0.device.advertisement) }) else {
            throw .deviceNotFound("no device advertising as \(describe(request)) before the deadline")
        }
        let setupDone = now + link.connectionSetup
        _ = run(until: setupDone, stopWhen: { _ in false })
        guard let advertisement = device.advertisement, matches(advertisement) else {
            throw .linkLost("\(describe(request)) stopped advertising while connecting")
        }
        connection += 1
        var negotiated: Int?
        for event in device.connect(mtu: link.mtu, at: now) {
            if case .connected(let mtu) = event.output {
                negotiated = mtu
            } else {
                handle(event)
            }
        }
        guard let negotiated else { throw .failed("the simulated device refused the connection") }
        mtu = negotiated
        scheduler = LinkScheduler(model: link, origin: now)
        let address: BluetoothAddress
        do {
            address = try BluetoothAddress(parsing: advertisement.address.description)
        } catch {
            throw .failed("the simulated device advertises an invalid address: \(error)")
        }
        let characteristics = Set(device.availableRoles.compactMap(Self.characteristic))
        return GATTConnection(mtu: negotiated, characteristics: characteristics, address: address)
    }

    /// Sends an ATT request and waits for its response.
    mutating func request(_ request: Request) throws(LinkError) -> [UInt8]? {
        guard var scheduler else { throw .linkLost("not connected") }
        let valueLength: Int
        switch request {
        case .enableNotifications: valueLength = 2
        case .write(_, let value):
            guard value.count <= mtu - 3 else { throw .failed("value of \(value.count) bytes exceeds MTU \(mtu) − 3") }
            valueLength = value.count
        case .read: valueLength = 0
        }
        let arrival = scheduler.send(valueLength: valueLength, readyAt: now)
        self.scheduler = scheduler
        requestCount += 1
        enqueue(.request(request), at: arrival)
        response = nil
        let connectionAtStart = connection
        let answered = run(until: now + operationTimeout) {
            $0.response != nil || $0.scheduler == nil || $0.connection != connectionAtStart
        }
        if let response {
            self.response = nil
            switch response {
            case .done(let value): return value
            case .failed(let failure): throw .rejected("ATT error from the device: \(failure)")
            }
        }
        guard answered else {
            disconnect(reason: "ATT transaction timed out")
            throw .timedOut("no ATT response within \(operationTimeout)")
        }
        throw .linkLost("link lost during the request")
    }

    /// Queues an ATT write command.
    mutating func command(_ role: CharacteristicRole, _ value: [UInt8]) throws(LinkError) {
        guard var scheduler else { throw .linkLost("not connected") }
        guard value.count <= mtu - 3 else { throw .failed("value of \(value.count) bytes exceeds MTU \(mtu) − 3") }
        let arrival = scheduler.send(valueLength: value.count, readyAt: now)
        self.scheduler = scheduler
        packetBytesWritten += value.count
        enqueue(.command(role, value), at: arrival)
    }

    mutating func disconnect() {
        disconnect(reason: "disconnected by the central")
    }

    mutating func nextEvent(until deadline: Duration) -> GATTEvent? {
        if inbox.isEmpty { _ = run(until: deadline) { !$0.inbox.isEmpty } }
        return inbox.isEmpty ? nil : inbox.removeFirst()
    }

    // MARK: The event loop

    private mutating func disconnect(reason: String) {
        guard scheduler != nil else { return }
        // The device may have dropped the link already, with the news still in flight to the central.
        if device.isConnected {
            for event in device.disconnect(at: now) { handle(event) }
        }
        linkDown(reason: reason)
    }

    private mutating func linkDown(reason: String) {
        scheduler = nil
        connection += 1
        deviceInputs.removeAll()
        deliveries.removeAll()
        inbox.append(.disconnected(reason: reason))
    }

    private mutating func enqueue(_ input: DeviceInput, at time: Duration) {
        sequence += 1
        deviceInputs.append(Timed(time: time, sequence: sequence, connection: connection, item: input))
    }

    private mutating func deliver(_ delivery: Delivery, at time: Duration) {
        sequence += 1
        let timed = Timed(time: time, sequence: sequence, connection: connection, item: delivery)
        let index = deliveries.firstIndex { ($0.time, $0.sequence) > (time, sequence) } ?? deliveries.count
        deliveries.insert(timed, at: index)
    }

    /// Processes everything due, in time order, until `stopWhen` holds (returns true) or nothing is due before
    /// `deadline` (returns false, with time at the deadline).
    private mutating func run(until deadline: Duration, stopWhen: (Simulation) -> Bool) -> Bool {
        var stepsAtThisTime = 0
        var lastTime = now
        while !stopWhen(self) {
            // A livelock (the device due again and again at the same instant) is a simulator bug: stop loudly.
            if now == lastTime {
                stepsAtThisTime += 1
                precondition(
                    stepsAtThisTime < 100_000,
                    "simulation livelock at \(now): device due at \(String(describing: device.nextEventTime)), "
                        + "log \(device.log.suffix(5))")
            } else {
                lastTime = now
                stepsAtThisTime = 0
            }
            let nextInput = deviceInputs.first?.time
            let nextDelivery = deliveries.first?.time
            let nextDevice = device.nextEventTime
            let candidates = [nextInput, nextDelivery, nextDevice].compactMap { $0 }
            guard let next = candidates.min(), next <= deadline else {
                now = max(now, deadline)
                return false
            }
            now = max(now, next)
            if let nextDelivery, nextDelivery == next {
                let delivery = deliveries.removeFirst()
                guard delivery.connection == connection else { continue }
                switch delivery.item {
                case .notification(let role, let value):
                    if let characteristic = Self.characteristic(role) {
                        inbox.append(.notification(characteristic, value))
                    }
                case .response(let response):
                    self.response = response
                case .linkDown(let reason):
                    linkDown(reason: "the device dropped the link (\(reason))")
                }
            } else if let nextInput, nextInput == next {
                let input = deviceInputs.removeFirst()
                guard input.connection == connection else { continue }
                let events: [SimulatorEvent]
                switch input.item {
                case .request(.enableNotifications(let role)):
                    events = device.enableNotifications(role: role, at: now)
                case .request(.write(let role, let value)):
                    events = device.write(role: role, bytes: value, withResponse: true, at: now)
                case .request(.read(let role)):
                    events = device.read(role: role, at: now)
                case .command(let role, let value):
                    events = device.write(role: role, bytes: value, withResponse: false, at: now)
                }
                for event in events { handle(event) }
            } else {
                for event in device.advance(to: now) { handle(event) }
            }
        }
        return true
    }

    /// Turns a device output into what the central sees, when it sees it.
    private mutating func handle(_ event: SimulatorEvent) {
        guard let scheduler else { return }
        switch event.output {
        case .notification(let role, let value):
            deliver(
                .notification(role, value), at: scheduler.deliveryToCentral(readyAt: event.time, payload: value.count))
        case .subscribed, .writeAcknowledged:
            deliver(.response(.done(nil)), at: scheduler.deliveryToCentral(readyAt: event.time, payload: 1))
        case .readValue(_, let value):
            deliver(.response(.done(value)), at: scheduler.deliveryToCentral(readyAt: event.time, payload: value.count))
        case .writeFailed(_, let failure), .readFailed(_, let failure):
            deliver(.response(.failed(failure)), at: scheduler.deliveryToCentral(readyAt: event.time, payload: 5))
        case .disconnected(let reason):
            // What the device queued before it dropped the link still goes out first (its LL sends pending PDUs
            // before LL_TERMINATE_IND), so link loss never overtakes an earlier notification.
            let pending = deliveries.filter { $0.connection == connection }.map(\.time).max() ?? event.time
            deliver(.linkDown(reason), at: max(event.time, pending))
        case .connected, .rebooted:
            break
        }
    }

    private func describe(_ request: ConnectionRequest) -> String {
        var names = [request.address.description]
        if let alternative = request.alternativeAddress { names.append(alternative.description) }
        if let name = request.advertisedName { names.append("'\(name)'") }
        return names.joined(separator: " or ")
    }
}

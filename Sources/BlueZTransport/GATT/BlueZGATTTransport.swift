package import BlueZ
import DBus
package import DFUController
package import DFUTargetAdapter
package import DeviceLink
import Synchronization

/// The DFU engine's transport over BlueZ: finds the device by scanning, connects, maps the DFU characteristics by
/// UUID, writes with and without response, and turns `PropertiesChanged(Value)` (after `StartNotify`) into
/// notifications and `Connected = false` into link loss.
///
/// Packets go through an `AcquireWrite` socket when BlueZ offers one (the fast path), else as `WriteValue` commands
/// sent back to back; a control-point write waits until the socket has handed over every packet, so it never
/// overtakes them (testrig.md).
///
/// Connecting follows what a real bluetoothd (5.66) does, not what one would hope (testrig.md, "Causes already
/// traced"): the link is up when `Device1.Connect` answers, when `ServicesResolved` is true or when a
/// `Properties.GetAll` re-read says so, never only when `Connected = true` is signalled (often it is not). A device
/// BlueZ already has an object for is connected directly, without discovery (one advertisement may be all a scan
/// start gets, and it may be lost); one this transport connected to before in the run (it has reset since) is
/// removed first and found advertising again, since a GATT cache kept across a reboot into the bootloader would
/// describe the application's services. Discovery restarts every few seconds until the deadline. A failed
/// connection or service resolution is tried again, up to ``Options/connectionAttempts`` times.
///
/// The same connection logic serves SMP (MCUmgr): `connectLink(_:deadline:)` also maps SMP's characteristic
/// (`LinkCharacteristic.smp`), and `enableNotifications(on:)`, `writeWithoutResponse(to:_:)` and
/// ``nextLinkEvent(until:)`` work on it (`SMPBlueZ` frames SMP on top). As a `GATTTransport` it refuses a device that
/// offers SMP but no nRF5 DFU, naming both.
package final class BlueZGATTTransport: GATTTransport {
    /// How the transport behaves.
    package struct Options: Sendable {
        /// Use an `AcquireWrite` socket for write commands where BlueZ offers one (else `WriteValue` calls only).
        package var usesAcquiredSockets = true
        /// Take notifications through an `AcquireNotify` socket (with ``usesAcquiredSockets``) instead of
        /// `StartNotify`.
        ///
        /// Off by default. bluetoothd before 5.84 (Debian 12's 5.66, Ubuntu 22.04's 5.64 and 24.04's 5.72) marks the
        /// characteristic acquired before the descriptor write behind `AcquireNotify` completes; when that write fails
        /// (the link drops, or the device answers with an ATT error, as one that is going down does), it never answers
        /// the call and keeps the mark until it restarts: every later `StartNotify` and `AcquireNotify` on that
        /// characteristic is refused with NotPermitted "Notify acquired", across reconnections (BlueZ commit
        /// 476ae809a, fixed in 5.84; Tests/VM/README.md). `StartNotify` answers such a failure and cleans up. A
        /// notification through `PropertiesChanged` costs one more D-Bus hop, nothing against the 30-50 ms
        /// connection interval it waited for.
        package var usesAcquiredNotify = false
        /// Connection attempts per `connect(_:deadline:)` (each: scan, `Connect`, service resolution).
        package var connectionAttempts = 3
        /// How long the first connection may wait for the device to appear, when longer than the engine's
        /// connection deadline (`upload --wait`).
        package var firstSearchTimeout: Duration?
        /// The longest a single write, read or subscription may take (BlueZ's ATT timeout is 30 s).
        package var operationTimeout: Duration = .seconds(35)
        /// The pause before the second connection attempt; each later attempt waits one more of these.
        package var retryDelay: Duration = .milliseconds(500)
        /// The longest BlueZ may take to resolve services after connecting, when the deadline leaves that much for
        /// every attempt still to come.
        package var serviceResolutionTimeout: Duration = .seconds(20)
        /// How often discovery is stopped and started again while the device has not been seen.
        ///
        /// Default 1 s. btvirt 5.66 advertises once per scan start, and Debian 12's kernel drops that report when
        /// it arrives before the kernel marks discovery as started (`mgmt_device_found` checks
        /// `hci_discovery_active`, still false in `DISCOVERY_STARTING`): 8 of 42 starts on the real-bluetoothd tier,
        /// more under load. Each start is one more chance; a real device's advertisements are seen within a window.
        package var discoveryRestartInterval: Duration = .seconds(1)
        /// How often the device's properties are re-read while waiting for its services: a missed signal costs
        /// this, not the deadline.
        package var propertyPollInterval: Duration = .seconds(1)

        /// The defaults: acquired sockets, 3 attempts, no extra wait.
        package init() {}
    }

    /// Which I/O path a connection uses, for reports.
    package struct Paths: Sendable, Equatable {
        /// Packets go through an `AcquireWrite` socket.
        package var acquiredWrite: Bool
        /// Notifications come through `AcquireNotify` sockets.
        package var acquiredNotify: Bool
    }

    package let clock = ContinuousClock()
    /// The BlueZ client.
    package let client: BlueZClient
    /// The adapter the transport scans and connects with.
    package let adapter: AdapterInfo
    private let options: Options
    private let state: Mutex<State>
    private let events = EventQueue<LinkEvent>()
    private let changes = EventQueue<Void>()
    private let pump = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var devices: [String: DeviceInfo] = [:]
        /// The sighting number of each device's latest advertisement (InterfacesAdded or an RSSI change).
        var sightings: [String: UInt64] = [:]
        var sightingCount: UInt64 = 0
        var session: Session?
        var hasSearched = false
        /// Device objects this transport connected to (or tried directly) in this run: the device behind them may
        /// have reset since, so their GATT cache is not trusted.
        var usedPaths: Set<String> = []
        /// The address of the latest connection: a bootloader after a buttonless jump may keep it.
        var lastAddress: BluetoothAddress?
        /// When the current ``connect(_:deadline:)`` began, for messages that state how long it searched.
        var connectionStarted: ContinuousClock.Instant?
        var paths = Paths(acquiredWrite: false, acquiredNotify: false)
    }

    private struct Session {
        let devicePath: String
        var characteristics: [LinkCharacteristic: CharacteristicInfo] = [:]
        /// Characteristics subscribed with `StartNotify`, by object path.
        var notifyingPaths: [String: LinkCharacteristic] = [:]
        var writeSocket: AcquiredSocket?
        /// The characteristic the `AcquireWrite` socket writes to.
        var writeSocketOwner: LinkCharacteristic?
        var notifySockets: [LinkCharacteristic: AcquiredSocket] = [:]
        var isUp = false

        func characteristic(_ role: LinkCharacteristic) throws(LinkError) -> CharacteristicInfo {
            guard isUp else { throw .linkLost("not connected") }
            guard let info = characteristics[role] else { throw .failed("the device has no \(role) characteristic") }
            return info
        }
    }

    private init(client: BlueZClient, adapter: AdapterInfo, options: Options, devices: [DeviceInfo]) {
        self.client = client
        self.adapter = adapter
        self.options = options
        var initial = State()
        for device in devices where device.adapterPath == adapter.path { initial.devices[device.path] = device }
        state = Mutex(initial)
    }

    deinit {
        pump.withLock { $0?.cancel() }
        endSession()
    }

    /// Opens a transport on an adapter.
    ///
    /// - Parameters:
    ///   - client: The BlueZ client.
    ///   - adapter: The adapter to scan and connect with.
    ///   - options: The transport's behaviour.
    /// - Returns: The transport, already following BlueZ's object signals.
    /// - Throws: ``BlueZError`` when BlueZ cannot be reached.
    package static func open(
        client: BlueZClient, adapter: AdapterInfo, options: Options = Options()
    ) async throws(BlueZError) -> BlueZGATTTransport {
        let stream = try await client.events()
        let snapshot = try await client.managedObjects()
        let transport = BlueZGATTTransport(
            client: client, adapter: adapter, options: options, devices: snapshot.devices)
        let task = Task { [weak transport] in
            for await event in stream {
                guard let transport else { return }
                transport.handle(event)
            }
        }
        transport.pump.withLock { $0 = task }
        return transport
    }

    /// The I/O paths of the latest connection.
    package var paths: Paths { state.withLock { $0.paths } }

    // MARK: GATTTransport

    package func connect(_ request: ConnectionRequest, deadline: ContinuousClock.Instant)
        async throws(LinkError)
        -> GATTConnection
    {
        let link = try await connectLink(request, deadline: deadline)
        let dfu = link.dfuCharacteristics
        if dfu.isEmpty && link.offersSMP {
            // An MCUboot/Zephyr device: the DFU engine would only say "no dfu service"; name what it offers.
            await disconnect()
            throw .unavailable(
                "\(link.address) offers SMP (MCUmgr service \(LinkCharacteristic.smpServiceUUID)), not nRF5 DFU "
                    + "(Secure FE59 or legacy 1530): a DFU package or image cannot go to it; give a signed MCUboot "
                    + "image, which goes over SMP")
        }
        return GATTConnection(mtu: link.mtu, characteristics: dfu, address: link.address)
    }

    /// Connects as ``connect(_:deadline:)`` does (discovery, the adapter's connection gate, service resolution,
    /// attempts), and reports every characteristic the transport knows, SMP's included.
    ///
    /// - Parameters:
    ///   - request: The device.
    ///   - deadline: When to give up.
    /// - Returns: The connection.
    /// - Throws: `LinkError`.
    package func connectLink(_ request: ConnectionRequest, deadline: ContinuousClock.Instant)
        async throws(LinkError) -> LinkConnection
    {
        try await detached { try await self.connectNow(request, deadline: deadline) }
    }

    private func connectNow(_ request: ConnectionRequest, deadline: ContinuousClock.Instant)
        async throws(LinkError) -> LinkConnection
    {
        self.endSession()
        self.events.removeAll()
        var deadline = deadline
        let isFirst = self.state.withLock { state in
            defer { state.hasSearched = true }
            state.connectionStarted = self.clock.now
            return !state.hasSearched
        }
        if isFirst, let patience = self.options.firstSearchTimeout {
            deadline = max(deadline, self.clock.now.advanced(by: patience))
        }
        var attempt = 1
        while true {
            do {
                return try await self.connectOnce(request, deadline: deadline, attempt: attempt)
            } catch {
                self.endSession()
                switch error.kind {
                case .linkLost, .timedOut, .failed:
                    guard attempt < self.options.connectionAttempts, self.clock.now < deadline else { throw error }
                    // A device that just reset may still be on its way down: give it time before the next try.
                    try? await Task.sleep(for: self.options.retryDelay * attempt)
                    attempt += 1
                case .unavailable, .deviceNotFound, .rejected:
                    throw error
                }
            }
        }
    }

    package func enableNotifications(_ characteristic: DFUCharacteristic) async throws(LinkError) {
        try await enableNotifications(on: .dfu(characteristic))
    }

    /// Subscribes to a characteristic's notifications with `StartNotify` (an `AcquireNotify` socket only with
    /// ``Options/usesAcquiredNotify``); they come out of ``nextLinkEvent(until:)``.
    ///
    /// - Parameter characteristic: The characteristic.
    /// - Throws: `LinkError`; `unavailable` when bluetoothd still holds the characteristic for an
    ///   `AcquireNotify` whose descriptor write failed (it refuses every subscription until it restarts).
    package func enableNotifications(on characteristic: LinkCharacteristic) async throws(LinkError) {
        try await detached { try await self.enableNotificationsNow(characteristic) }
    }

    private func enableNotificationsNow(_ characteristic: LinkCharacteristic) async throws(LinkError) {
        let info = try self.state.withLock { state throws(LinkError) in
            try Self.session(state).characteristic(characteristic)
        }
        if options.usesAcquiredSockets && options.usesAcquiredNotify && info.flags.contains("notify"),
            let socket = try await acquireNotifySocket(characteristic, info)
        {
            let isUp = state.withLock { state in
                guard state.session?.isUp == true else { return false }
                state.session?.notifySockets[characteristic] = socket
                state.paths.acquiredNotify = true
                return true
            }
            guard isUp else {
                socket.close()
                throw .linkLost("the link dropped while acquiring notifications")
            }
            socket.watch { [weak self] in self?.receiveNotifications(characteristic, from: socket) ?? false }
            return
        }
        self.state.withLock { state in
            state.session?.notifyingPaths[info.path] = characteristic
            state.paths.acquiredNotify = false
        }
        do {
            try await self.call(info.path, BlueZInterface.characteristic, "StartNotify")
        } catch .inProgress {
            // Already notifying for this client: the subscription stands.
        } catch .notPermitted(let cause) where Self.isNotifyAcquired(cause) {
            throw .unavailable(notifyHeld(characteristic))
        } catch {
            throw self.transportError(error, doing: "StartNotify on \(characteristic)")
        }
    }

    /// An `AcquireNotify` socket, or `nil` when BlueZ answered without one (notifications then come through
    /// `StartNotify`).
    ///
    /// A call BlueZ never answers is not followed by `StartNotify`: bluetoothd before 5.84 leaves such a
    /// characteristic marked acquired (``Options/usesAcquiredNotify``), and would only refuse it.
    private func acquireNotifySocket(_ characteristic: LinkCharacteristic, _ info: CharacteristicInfo)
        async throws(LinkError) -> AcquiredSocket?
    {
        do {
            return try await acquire("AcquireNotify", on: info)
        } catch .notConnected, .doesNotExist {
            throw .linkLost("AcquireNotify on \(characteristic): the link dropped")
        } catch .notPermitted(let cause) where Self.isNotifyAcquired(cause) {
            throw .unavailable(notifyHeld(characteristic))
        } catch .bus(.timedOut) {
            let device = state.withLock { $0.lastAddress?.description } ?? "the device"
            throw .unavailable(
                "bluetoothd did not answer AcquireNotify on the \(characteristic) characteristic of \(device) within "
                    + "\(seconds(options.operationTimeout)): its descriptor write failed, and a bluetoothd before 5.84 "
                    + "then holds the notifications until it restarts; restart bluetooth ('sudo systemctl restart "
                    + "bluetooth') and try again")
        } catch {
            // Answered without a socket (not offered, or another client's StartNotify holds it): StartNotify.
            return nil
        }
    }

    /// Whether a NotPermitted answer is bluetoothd's "Notify acquired" (`gatt-client.c`).
    private static func isNotifyAcquired(_ cause: DBusError) -> Bool {
        if case .errorReply(_, let message) = cause { return message == "Notify acquired" }
        return false
    }

    /// The one line for a characteristic whose notifications bluetoothd holds for an `AcquireNotify`.
    private func notifyHeld(_ characteristic: LinkCharacteristic) -> String {
        let device = state.withLock { $0.lastAddress?.description } ?? "the device"
        return "bluetoothd refuses notifications on the \(characteristic) characteristic of \(device) "
            + "(NotPermitted 'Notify acquired'): an AcquireNotify holds them, another program's or one whose "
            + "descriptor write failed, which a bluetoothd before 5.84 never releases; close the other program or "
            + "restart bluetooth ('sudo systemctl restart bluetooth') and try again"
    }

    package func write(_ characteristic: DFUCharacteristic, _ value: [UInt8]) async throws(LinkError) {
        try await detached { try await self.writeNow(.dfu(characteristic), value) }
    }

    private func writeNow(_ characteristic: LinkCharacteristic, _ value: [UInt8]) async throws(LinkError) {
        let (info, socket) = try self.state.withLock { state throws(LinkError) in
            let session = try Self.session(state)
            return (try session.characteristic(characteristic), session.writeSocket)
        }
        let deadline = self.clock.now.advanced(by: self.options.operationTimeout)
        try await socket?.waitUntilSent(deadline: deadline)
        do {
            try await self.call(
                info.path, BlueZInterface.characteristic, "WriteValue",
                [.bytes(value), .propertyDictionary(["type": .string("request")])])
        } catch {
            throw self.transportError(error, doing: "write to \(characteristic)")
        }
    }

    package func writeWithoutResponse(_ characteristic: DFUCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)
    {
        try await writeWithoutResponse(to: .dfu(characteristic), packets)
    }

    /// Writes each packet without response, in order: through the `AcquireWrite` socket when it belongs to this
    /// characteristic, else as `WriteValue` commands.
    ///
    /// - Parameters:
    ///   - characteristic: The characteristic.
    ///   - packets: The values, each at most ATT MTU − 3 bytes.
    /// - Throws: `LinkError`.
    package func writeWithoutResponse(to characteristic: LinkCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)
    {
        try await detached { try await self.writeWithoutResponseNow(characteristic, packets) }
    }

    private func writeWithoutResponseNow(_ characteristic: LinkCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)
    {
        let (info, socket) = try self.state.withLock { state throws(LinkError) in
            let session = try Self.session(state)
            let socket = session.writeSocketOwner == characteristic ? session.writeSocket : nil
            return (try session.characteristic(characteristic), socket)
        }
        let deadline = self.clock.now.advanced(by: self.options.operationTimeout)
        if let socket {
            do {
                try await socket.send(packets, deadline: deadline)
            } catch {
                throw self.isUp ? error : .linkLost("the link dropped while sending packets")
            }
            return
        }
        let options = DBusValue.propertyDictionary(["type": .string("command")])
        // A bounded window of calls in flight: in order, one round trip per window instead of per packet.
        var start = 0
        while start < packets.count {
            let window = packets[start..<min(packets.count, start + 32)]
            do {
                _ = try await self.client.connection.callInOrder(
                    destination: BlueZInterface.service, path: info.path,
                    interface: BlueZInterface.characteristic, member: "WriteValue",
                    argumentLists: window.map { [.bytes($0), options] }, timeout: self.options.operationTimeout)
            } catch {
                throw self.transportError(BlueZError(error), doing: "write command to \(characteristic)")
            }
            start += window.count
        }
    }

    package func read(_ characteristic: DFUCharacteristic) async throws(LinkError) -> [UInt8] {
        try await detached { try await self.readNow(.dfu(characteristic)) }
    }

    private func readNow(_ characteristic: LinkCharacteristic) async throws(LinkError) -> [UInt8] {
        let info = try self.state.withLock { state throws(LinkError) in
            try Self.session(state).characteristic(characteristic)
        }
        do {
            let reply = try await self.call(
                info.path, BlueZInterface.characteristic, "ReadValue", [.propertyDictionary([:])])
            guard let value = reply.first?.bytesValue else {
                throw LinkError.failed("bluez answered ReadValue on \(characteristic) without a value")
            }
            return value
        } catch let error as LinkError {
            throw error
        } catch let error as BlueZError {
            throw self.transportError(error, doing: "read of \(characteristic)")
        } catch {
            throw .failed("read of \(characteristic): \(error)")
        }
    }

    package func disconnect() async {
        await Task {
            let path = self.state.withLock { state -> String? in
                guard let session = state.session, session.isUp else { return nil }
                return session.devicePath
            }
            guard let path else { return }
            self.state.withLock { state in self.linkDown(&state, reason: "disconnected by nrfloader") }
            // Never while another link of this adapter is being created or torn down (ConnectionGate).
            await ConnectionGate.gate(for: self.adapter.path).holding { () async in
                _ = try? await self.call(path, BlueZInterface.device, "Disconnect")
            }
        }.value
    }

    package func nextEvent(until deadline: ContinuousClock.Instant) async throws(LinkError) -> GATTEvent? {
        while let event = await events.next(until: deadline) {
            switch event {
            case .notification(.dfu(let role), let value): return .notification(role, value)
            case .notification(.smp, _):
                // Only an SMP link subscribes to SMP notifications, and it reads them with nextLinkEvent(until:).
                continue
            case .disconnected(let reason): return .disconnected(reason: reason)
            }
        }
        return nil
    }

    /// Waits for the next notification on any subscribed characteristic, or the link's loss (reported once per
    /// connection, also after ``disconnect()``).
    ///
    /// - Parameter deadline: When to stop waiting.
    /// - Returns: The event, or `nil` at the deadline or when the task was cancelled.
    package func nextLinkEvent(until deadline: ContinuousClock.Instant) async -> LinkEvent? {
        await events.next(until: deadline)
    }

    // MARK: Connecting

    private func connectOnce(_ request: ConnectionRequest, deadline: ContinuousClock.Instant, attempt: Int)
        async throws(LinkError) -> LinkConnection
    {
        let path = try await locate(request, deadline: deadline)
        return try await setUp(path, request, deadline: deadline, attempt: attempt)
    }

    /// Connects to the located device and maps its DFU characteristics; only `Device1.Connect`
    /// (``requestLink(_:_:deadline:attempt:)``) and the teardown of an attempt given up hold the adapter's connection
    /// gate, so a fleet's devices resolve services, read their characteristics and acquire their sockets side by side.
    private func setUp(_ path: String, _ request: ConnectionRequest, deadline: ContinuousClock.Instant, attempt: Int)
        async throws(LinkError) -> LinkConnection
    {
        state.withLock { $0.session = Session(devicePath: path) }
        let address = state.withLock { $0.devices[path]?.address } ?? request.address
        let (attemptDeadline, connectStarted) = try await requestLink(
            path, address, deadline: deadline, attempt: attempt)
        let resolutionDeadline = min(attemptDeadline, clock.now.advanced(by: options.serviceResolutionTimeout))
        let resolved = await waitForServices(path, until: resolutionDeadline)
        guard let resolved else {
            await cancelConnection(path)
            throw .timedOut(
                "bluez did not resolve the services of \(address) within "
                    + seconds(connectStarted.duration(to: clock.now)))
        }
        guard resolved else { throw .linkLost("bluez removed \(address) while connecting") }
        let objects: BlueZObjects
        do {
            objects = try await client.managedObjects()
        } catch {
            throw transportError(error, doing: "read the services of \(address)")
        }
        let exported = objects.characteristics.filter { $0.path.hasPrefix(path + "/") }
        guard !exported.isEmpty else {
            // A device that is going away (reset, power loss) can still take the connection while its GATT server
            // is gone: no characteristic at all is a failed attempt, not a device without DFU.
            throw .linkLost("\(address) connected without any GATT characteristic")
        }
        var characteristics: [LinkCharacteristic: CharacteristicInfo] = [:]
        for info in exported {
            if let role = LinkCharacteristic(uuid: info.uuid) { characteristics[role] = info }
        }
        var mtu = min(max(characteristics.values.compactMap(\.mtu).max() ?? 23, 23), 517)
        var socket: AcquiredSocket?
        // The packet characteristic of a DFU device, or SMP's: the one that takes a stream of write commands.
        let packetRole = LinkCharacteristic.allCases.first {
            $0.takesWriteCommands && characteristics[$0]?.flags.contains("write-without-response") == true
        }
        if options.usesAcquiredSockets, let packetRole, let packet = characteristics[packetRole] {
            do {
                let acquired = try await acquire("AcquireWrite", on: packet)
                socket = acquired
                mtu = acquired.mtu
            } catch .notConnected, .doesNotExist {
                throw .linkLost("\(address) disconnected while acquiring its packet socket")
            } catch {
                // No socket offered: packets go as WriteValue commands.
            }
        }
        let isUp = state.withLock { state in
            guard let device = state.devices[path], device.isConnected, state.session?.devicePath == path else {
                return false
            }
            state.lastAddress = address
            state.session?.characteristics = characteristics
            state.session?.writeSocket = socket
            state.session?.writeSocketOwner = socket == nil ? nil : packetRole
            state.session?.isUp = true
            state.paths = Paths(acquiredWrite: socket != nil, acquiredNotify: false)
            return true
        }
        guard isUp else {
            socket?.close()
            throw .linkLost("\(address) disconnected while connecting")
        }
        return LinkConnection(mtu: mtu, characteristics: Set(characteristics.keys), address: address)
    }

    /// Asks BlueZ for the link (`Device1.Connect`) holding the adapter's connection gate: the one step of a set-up
    /// that creates a link in the kernel, never beside another's creation or teardown (ConnectionGate).
    ///
    /// - Returns: The attempt's deadline, its share of what is left once the gate let it in, and when `Connect` was
    ///   sent.
    private func requestLink(
        _ path: String, _ address: BluetoothAddress, deadline: ContinuousClock.Instant, attempt: Int
    ) async throws(LinkError) -> (attemptDeadline: ContinuousClock.Instant, connectStarted: ContinuousClock.Instant) {
        try await ConnectionGate.gate(for: adapter.path).holding { () async throws(LinkError) in
            guard clock.now < deadline else {
                throw .timedOut(
                    "waited past the connection deadline for another device's link on \(adapter.interfaceName)")
            }
            // One attempt may use its share of what is left, so that a failed one leaves time to try again.
            let attemptsLeft = max(options.connectionAttempts - attempt + 1, 1)
            let share = max(
                remaining(until: deadline) / attemptsLeft, min(options.serviceResolutionTimeout, .seconds(5)))
            let attemptDeadline = min(deadline, clock.now.advanced(by: max(share, .milliseconds(1))))
            let connectStarted = clock.now
            do throws(BlueZError) {
                try await call(path, BlueZInterface.device, "Connect", timeout: remaining(until: attemptDeadline))
                // BlueZ answers Connect once the link is up: the truth when no Connected=true is signalled.
                state.withLock { state in state.devices[path]?.isConnected = true }
            } catch .alreadyConnected, .inProgress {
                // Connected already, or BlueZ is connecting: service resolution decides.
            } catch .bus(.timedOut) {
                // Still holding the gate: the teardown of this attempt is part of the same step.
                await disconnectDevice(path)
                throw .timedOut(
                    "bluez did not connect to \(address) within \(seconds(connectStarted.duration(to: clock.now)))")
            } catch {
                throw transportError(error, doing: "connect to \(address)")
            }
            return (attemptDeadline, connectStarted)
        }
    }

    /// Finds the device the request names: connected already, or seen advertising after its cached object (if
    /// any) was removed.
    private func locate(_ request: ConnectionRequest, deadline: ContinuousClock.Instant)
        async throws(LinkError) -> String
    {
        var wanted = Set([request.address] + (request.alternativeAddress.map { [$0] } ?? []))
        // After a buttonless jump the bootloader may keep the application's address instead of taking the next one
        // (Nordic's Android library looks at both).
        if let last = state.withLock({ $0.lastAddress }), last.incrementedLeastSignificantByte == request.address {
            wanted.insert(last)
        }
        let adapterPath = adapter.path
        let addresses = wanted
        let matches: @Sendable (DeviceInfo) -> Bool = { device in
            guard device.adapterPath == adapterPath else { return false }
            if let address = device.address, addresses.contains(address) { return true }
            return request.advertisedName != nil && device.name == request.advertisedName
        }
        let (cached, used) = state.withLock { state in
            (state.devices.values.filter(matches).sorted { $0.path < $1.path }, state.usedPaths)
        }
        if let connected = cached.first(where: \.isConnected) { return connected.path }
        // BlueZ knows the device and this run has not used its object yet: Device1.Connect needs no advertisement.
        if let known = cached.first(where: { !used.contains($0.path) }) {
            state.withLock { _ = $0.usedPaths.insert(known.path) }
            return known.path
        }
        for device in cached where !device.isPaired {
            _ = try? await call(adapter.path, BlueZInterface.adapter, "RemoveDevice", [.objectPath(device.path)])
        }
        let baseline = state.withLock { $0.sightingCount }
        var found: String?
        var starts = 0
        repeat {
            starts += 1
            do {
                try await client.setDiscoveryFilter(DiscoveryFilter(), on: adapter)
                try await client.startDiscovery(on: adapter)
            } catch .inProgress {
                // Another discovery session of ours is running.
            } catch {
                throw transportError(error, doing: "start discovery on \(adapter.interfaceName)")
            }
            let roundEnd = min(deadline, clock.now.advanced(by: options.discoveryRestartInterval))
            found = await waitUntil(roundEnd) { state -> String? in
                state.devices.values.first { device in
                    matches(device)
                        && ((state.sightings[device.path] ?? 0) > baseline || (device.isPaired && device.rssi != nil))
                }?.path
            }
            _ = try? await client.stopDiscovery(on: adapter)
        } while found == nil && clock.now < deadline
        if let found { state.withLock { _ = $0.usedPaths.insert(found) } }
        guard let found else {
            let started = state.withLock { $0.connectionStarted } ?? clock.now
            let waited = Int((started.duration(to: deadline) / .seconds(1)).rounded())
            let seen = state.withLock { state in
                Set(state.sightings.filter { $0.value > baseline }.keys.compactMap { state.devices[$0]?.address })
            }
            throw .deviceNotFound(
                "no device advertising as \(describe(request)) on \(adapter.interfaceName) within \(waited) s "
                    + "(\(starts) discovery start\(starts == 1 ? "" : "s"), \(seen.count) other device"
                    + "\(seen.count == 1 ? "" : "s") seen)")
        }
        return found
    }

    private func describe(_ request: ConnectionRequest) -> String {
        var names = [request.address.description]
        if let alternative = request.alternativeAddress { names.append(alternative.description) }
        if let name = request.advertisedName { names.append("'\(name)'") }
        return names.joined(separator: " or ")
    }

    private func acquire(_ method: String, on info: CharacteristicInfo) async throws(BlueZError) -> AcquiredSocket {
        let reply = try await call(info.path, BlueZInterface.characteristic, method, [.propertyDictionary([:])])
        guard reply.count == 2, case .unixFD(let descriptor) = reply[0] else {
            for case .unixFD(let descriptor) in reply { AcquiredSocket(descriptor: descriptor, mtu: 23).close() }
            throw .bus(.invalidArgument("\(method) answered with \(reply.map(\.type))"))
        }
        return AcquiredSocket(descriptor: descriptor, mtu: reply[1].intValue ?? 23)
    }

    // MARK: Events

    private func handle(_ event: BlueZEvent) {
        state.withLock { state in
            switch event {
            case .interfacesAdded(let path, let interfaces):
                guard let properties = interfaces[BlueZInterface.device] else { break }
                let device = DeviceInfo(path: path, properties: properties)
                guard device.adapterPath == adapter.path else { break }
                state.devices[path] = device
                state.sightingCount += 1
                state.sightings[path] = state.sightingCount
            case .interfacesRemoved(let path, let interfaces):
                guard interfaces.contains(BlueZInterface.device), state.devices.removeValue(forKey: path) != nil
                else { break }
                if state.session?.devicePath == path { linkDown(&state, reason: "bluez removed the device") }
            case .propertiesChanged(let path, BlueZInterface.device, let changed, _):
                guard let device = state.devices[path] else { break }
                state.devices[path] = device.updated(with: changed)
                if changed["RSSI"] != nil {
                    state.sightingCount += 1
                    state.sightings[path] = state.sightingCount
                }
                if changed["Connected"]?.boolValue == false, state.session?.devicePath == path {
                    linkDown(&state, reason: "the device disconnected")
                }
            case .propertiesChanged(let path, BlueZInterface.characteristic, let changed, _):
                guard let value = changed["Value"]?.bytesValue, let session = state.session, session.isUp,
                    let role = session.notifyingPaths[path]
                else { break }
                events.push(.notification(role, value))
            case .propertiesChanged:
                break
            }
        }
        changes.push(())
    }

    /// Called on a notify socket's watcher thread; `false` stops the watcher.
    private func receiveNotifications(_ role: LinkCharacteristic, from socket: AcquiredSocket) -> Bool {
        state.withLock { state in
            guard let session = state.session, session.isUp, session.notifySockets[role] === socket else {
                return false
            }
            let (messages, isAtEnd) = socket.receiveAvailable()
            for message in messages { events.push(.notification(role, message)) }
            if isAtEnd { linkDown(&state, reason: "bluez closed the notification socket") }
            return !isAtEnd
        }
    }

    /// Marks the link down once: what the notify sockets still hold comes out first, then the link loss.
    private func linkDown(_ state: inout State, reason: String) {
        guard var session = state.session, session.isUp else { return }
        for (role, socket) in session.notifySockets.sorted(by: { $0.key.uuid < $1.key.uuid }) {
            for message in socket.receiveAvailable().messages { events.push(.notification(role, message)) }
            socket.close()
        }
        session.writeSocket?.close()
        session.notifySockets.removeAll()
        session.writeSocket = nil
        session.writeSocketOwner = nil
        session.notifyingPaths.removeAll()
        session.isUp = false
        state.session = session
        events.push(.disconnected(reason: reason))
    }

    private func endSession() {
        state.withLock { state in
            guard let session = state.session else { return }
            session.writeSocket?.close()
            for socket in session.notifySockets.values { socket.close() }
            state.session = nil
        }
    }

    private var isUp: Bool { state.withLock { $0.session?.isUp == true } }

    private static func session(_ state: State) throws(LinkError) -> Session {
        guard let session = state.session else { throw .linkLost("not connected") }
        return session
    }

    /// Waits until `condition` gives a value (re-checked on every BlueZ event), or `nil` at the deadline.
    private func waitUntil<T: Sendable>(
        _ deadline: ContinuousClock.Instant, _ condition: @Sendable (State) -> T?
    ) async -> T? {
        while true {
            changes.removeAll()
            if let value = state.withLock({ condition($0) }) { return value }
            guard await changes.next(until: deadline) != nil else {
                return state.withLock { condition($0) }
            }
        }
    }

    /// Waits until BlueZ has resolved the device's services (`true`), removed the device (`false`) or the deadline
    /// passed (`nil`), re-reading the device's properties now and then: a signal may never come (testrig.md).
    private func waitForServices(_ path: String, until deadline: ContinuousClock.Instant) async -> Bool? {
        let condition: @Sendable (State) -> Bool? = { state in
            guard let device = state.devices[path] else { return false }
            return device.servicesResolved ? true : nil
        }
        while true {
            let pollEnd = min(deadline, clock.now.advanced(by: options.propertyPollInterval))
            if let result = await waitUntil(pollEnd, condition) { return result }
            await refreshDevice(path)
            if let result = state.withLock({ condition($0) }) { return result }
            guard clock.now < deadline else { return nil }
        }
    }

    /// Re-reads a device's properties (`Properties.GetAll`); a device BlueZ no longer has is forgotten.
    private func refreshDevice(_ path: String) async {
        do {
            let reply = try await call(
                path, BlueZInterface.properties, "GetAll", [.string(BlueZInterface.device)], timeout: .seconds(5))
            guard let properties = reply.first?.stringKeyedDictionary?.mapValues(\.unwrappingVariant) else { return }
            let device = DeviceInfo(path: path, properties: properties)
            state.withLock { state in
                if state.devices[path] != nil { state.devices[path] = device }
            }
        } catch {
            let gone: Bool
            switch error {
            case .doesNotExist: gone = true
            case .bus(.errorReply(let name, _)):
                gone = name == DBusError.Names.unknownObject || name == DBusError.Names.unknownMethod
            default: gone = false  // A busy bus: the next poll tries again.
            }
            if gone { state.withLock { _ = $0.devices.removeValue(forKey: path) } }
        }
    }

    /// Gives up a connection attempt in BlueZ too, so that the next one starts clean; a teardown, so it waits for the
    /// adapter's connection gate.
    private func cancelConnection(_ path: String) async {
        await ConnectionGate.gate(for: adapter.path).holding { () async in await disconnectDevice(path) }
    }

    /// `Device1.Connect`'s counterpart, for a caller that holds the adapter's connection gate.
    private func disconnectDevice(_ path: String) async {
        _ = try? await call(path, BlueZInterface.device, "Disconnect", timeout: .seconds(5))
    }

    private func seconds(_ duration: Duration) -> String {
        let tenths = Int((duration / .milliseconds(100)).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    private func remaining(until deadline: ContinuousClock.Instant) -> Duration {
        max(clock.now.duration(to: deadline), .milliseconds(1))
    }

    // MARK: Calls and errors

    @discardableResult
    private func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration? = nil
    ) async throws(BlueZError) -> [DBusValue] {
        do {
            return try await client.connection.call(
                destination: BlueZInterface.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout ?? options.operationTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    /// Sorts a BlueZ failure by what the user can do about it; a failure while the link is down is link loss.
    private func transportError(_ error: BlueZError, doing operation: String) -> LinkError {
        let text = "\(operation): \(error)"
        switch error {
        case .busUnavailable, .notRunning, .permissionDenied, .noAdapter, .adapterPoweredOff, .notReady:
            return .unavailable(text)
        case .bus(.timedOut):
            return .timedOut(text)
        case .bus(.disconnected):
            return .unavailable("\(operation): the system bus connection closed")
        case _ where state.withLock({ $0.session.map { !$0.isUp } ?? false }):
            return .linkLost("\(operation): the link dropped")
        case .notConnected, .doesNotExist:
            return .linkLost(text)
        case .notPermitted, .notAuthorized, .invalidValueLength, .invalidOffset, .notSupported:
            return .rejected(text)
        case .failed(.errorReply(_, "Not connected")):
            // gatt-client.c answers a call on a device whose link is gone with Failed "Not connected", which can come
            // before the Connected = false signal.
            return .linkLost(text)
        case .failed(let cause):
            return "\(cause)".contains("ATT error") ? .rejected(text) : .failed(text)
        default:
            return .failed(text)
        }
    }

    /// Runs `body` in a task of its own, so that cancelling the caller does not abandon a BlueZ call half way
    /// (the engine's clean-up writes must still go out; only ``nextEvent(until:)`` reacts to cancellation).
    private func detached<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T
    ) async throws(LinkError) -> T {
        let result = await Task { () async -> Result<T, LinkError> in
            do {
                return .success(try await body())
            } catch let error as LinkError {
                return .failure(error)
            } catch {
                return .failure(.failed("\(error)"))
            }
        }.value
        return try result.get()
    }
}

import BlueZ
import DBus
package import Foundation
import Synchronization
package import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Secure DFU service UUID (0xFE59) in its 128-bit form, as the rig's peripherals advertise it.
package let secureDFUService = "0000fe59-0000-1000-8000-00805f9b34fb"

/// The BlueZ stand-in of testrig.md: a ``PrivateBus`` with bluezoo (patched by `Tests/Rig/bluezoo_rig.py`) on it,
/// started by the tests themselves and stopped by pid, also when a test fails.
///
/// Set up the venv with `Tests/Rig/setup.sh`; without it the tests that need bluezoo are disabled, with a reason.
package final class BlueZRig: Sendable {
    package let bus: PrivateBus
    package let bluezooPID: pid_t
    private let children: Mutex<[RigProcess]>
    /// Run by ``stop()`` before the children are killed (helpers that manage their own processes register here).
    private let stopActions = Mutex<[@Sendable () -> Void]>([])

    /// The two adapters bluezoo starts with: hci0 is the central, hci1 plays peripherals.
    package static let adapterAddresses = ["00:11:22:33:44:01", "C0:DE:00:00:00:02"]

    package static let venvPython = TestPaths.repositoryRoot.appendingPathComponent(".build-rig/venv/bin/python").path
    package static let rigDirectory = TestPaths.repositoryRoot.appendingPathComponent("Tests/Rig").path

    /// Whether bluezoo can run here.
    package static var isAvailable: Bool {
        PrivateBus.daemonPath != nil && FileManager.default.isExecutableFile(atPath: venvPython)
    }

    /// Why the bluezoo tests are disabled when they are.
    package static let unavailableReason: Comment = "the BlueZ rig is not set up: run Tests/Rig/setup.sh"

    private init(bus: PrivateBus, bluezoo: RigProcess) {
        self.bus = bus
        self.bluezooPID = bluezoo.pid
        self.children = Mutex([bluezoo])
    }

    /// What a real bluetoothd 5.66 on btvirt does that bluezoo does not (testrig.md, "Causes already traced on
    /// Rung 2"); `Tests/Rig/bluezoo_rig.py --quirk NAME` models each.
    package enum Quirk: String, Sendable {
        /// No `Connected = true` signal for the central's connection (ServicesResolved still comes).
        case silentConnected = "silent-connected"
        /// One advertising report per scan start, and the report of every odd-numbered start lost.
        case oneReportPerScan = "one-report-per-scan"
        /// RSSI 127 ("not available") for every device.
        case rssiUnavailable = "rssi-unavailable"
        /// A server application's WriteValue gets no "type" option.
        case untypedServerWrites = "untyped-server-writes"
        /// The first Connect of each device removes it (InterfacesRemoved) instead of connecting, then it is
        /// found again on the next scan.
        case removedWhileConnecting = "removed-while-connecting"
        /// Connected and ServicesResolved become true without a signal (as if before the client subscribed).
        case unsignalledServicesResolved = "unsignalled-services-resolved"
        /// A central's AcquireNotify is never answered and leaves the characteristic held: StartNotify and
        /// AcquireNotify on it are then refused with NotPermitted "Notify acquired" (bluetoothd before 5.84, when
        /// the descriptor write behind AcquireNotify fails).
        case acquireNotifyTrap = "acquire-notify-trap"
        /// Every StartNotify and AcquireNotify of a central refused with NotPermitted "Notify acquired", the state
        /// a failed AcquireNotify left in an earlier session.
        case notifyAcquired = "notify-acquired"
    }

    /// Runs `body` with a fresh rig and always stops it afterwards.
    package static func with<T>(
        poweredOn: Bool = true,
        quirks: [Quirk] = [],
        _ body: (BlueZRig) async throws -> T
    ) async throws -> T {
        let bus = try PrivateBus.start()
        var bluezooArguments = [rigDirectory + "/bluezoo_rig.py", "--scan-interval", "1"]
        for quirk in quirks { bluezooArguments += ["--quirk", quirk.rawValue] }
        if poweredOn { bluezooArguments.append("--auto-enable") }
        for address in adapterAddresses { bluezooArguments += ["-a", address] }
        let bluezoo: RigProcess
        do {
            bluezoo = try RigProcess.start(
                venvPython, bluezooArguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
                log: bus.directory.file("rig.log"))
        } catch {
            bus.stop()
            throw error
        }
        let rig = BlueZRig(bus: bus, bluezoo: bluezoo)
        defer { rig.stop() }
        try await rig.waitForName("org.bluez")
        return try await body(rig)
    }

    /// Starts `Tests/Rig/peripheral.py`: an LE advertisement on `adapter`; killed with the rig.
    ///
    /// - Returns: The peripheral's pid.
    @discardableResult
    package func startPeripheral(adapter: String = "hci1", name: String, serviceUUIDs: [String]) throws -> pid_t {
        var arguments = [Self.rigDirectory + "/peripheral.py", "--adapter", adapter, "--name", name]
        for uuid in serviceUUIDs { arguments += ["--service-uuid", uuid] }
        let child = try RigProcess.start(
            Self.venvPython, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
            log: bus.directory.file("rig.log"))
        children.withLock { $0.append(child) }
        return child.pid
    }

    /// Adds an adapter to bluezoo at run time (`org.bluezoo.Manager1.AddAdapter`), powered like the others.
    ///
    /// - Parameters:
    ///   - index: Its number: 2 makes `hci2`.
    ///   - address: Its address.
    /// - Throws: `BlueZError` when bluezoo refuses (the index is taken).
    package func addAdapter(_ index: UInt8, address: String) async throws {
        let client = try await BlueZClient.connect(.address(bus.address))
        defer { client.connection.close() }
        try await client.call(
            path: "/org/bluezoo", interface: "org.bluezoo.Manager1", member: "AddAdapter",
            arguments: [.byte(index), .string(address)])
    }

    /// Every pid the rig started: the bus, bluezoo, peripherals.
    package var pids: [pid_t] {
        [bus.pid] + children.withLock { $0.map(\.pid) }
    }

    /// The log bluezoo and the peripherals wrote.
    package var log: String {
        (try? String(contentsOfFile: bus.directory.file("rig.log"), encoding: .utf8)) ?? ""
    }

    /// Makes ``stop()`` run `action` first: for helpers (in extensions) that start processes of their own.
    package func onStop(_ action: @escaping @Sendable () -> Void) {
        stopActions.withLock { $0.append(action) }
    }

    /// Kills and reaps every child, then the bus.
    package func stop() {
        let actions = stopActions.withLock { actions in
            defer { actions.removeAll() }
            return actions
        }
        for action in actions { action() }
        let running = children.withLock { children in
            defer { children.removeAll() }
            return children
        }
        for child in running { child.stop() }
        bus.stop()
    }

    /// Waits until `name` has an owner on the rig's bus, for at most 20 s (Python start-up on a loaded machine).
    private func waitForName(_ name: String) async throws {
        let connection = try await BusConnection.open(.address(bus.address))
        defer { connection.close() }
        let changes = try await connection.signals(
            matching: DBusMatchRule(sender: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name))
        let hasOwner = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)], timeout: .seconds(5))
        if hasOwner.first?.boolValue == true { return }
        let appeared = try await withDeadline(.seconds(20)) {
            for await change in changes where change.arguments.count == 3 {
                if change.arguments[2].stringValue?.isEmpty == false { return true }
            }
            return false
        }
        guard appeared == true else {
            throw RigError(description: "bluezoo did not take '\(name)' within 20 s; its log:\n\(log)")
        }
    }
}

/// Runs `body`, giving up after `limit`: a watchdog against a hung peer, not a way of waiting for something.
///
/// - Returns: `body`'s result, or `nil` when the limit passed first.
package func withDeadline<T: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// How long an in-process rig test waits for a served peripheral to register: generous, because the whole test run
/// shares two cores, and tests that wait for a child process synchronously can hold the cooperative pool's threads
/// for many seconds, during which nothing async in this process runs.
package let rigWait: Duration = .seconds(120)

/// The connection deadline of an in-process rig test: BlueZTransport sets up one link at a time per adapter path and
/// process (its ConnectionGate), and every rig's central is hci0, so the set-ups of concurrent suites queue behind
/// each other; and ``rigWait``'s reason applies.
package let rigConnectionTimeout: Duration = .seconds(180)

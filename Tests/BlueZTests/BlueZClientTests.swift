import BlueZ
import DBus
import DFUController
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Waits (bounded) for the first event `pick` accepts.
private func first<Events: AsyncSequence & Sendable, T: Sendable>(
    _ events: Events, within limit: Duration = .seconds(20), _ pick: @escaping @Sendable (BlueZEvent) -> T?
) async throws -> T? where Events.Element == BlueZEvent, Events.Failure == Never {
    try await withDeadline(limit) {
        for await event in events {
            if let found = pick(event) { return found }
        }
        return nil
    } ?? nil
}

@Suite("BlueZClient", .tags(.integration))
struct BlueZClientTests {
    @Test("BlueZ absent from the bus is notRunning, with its message", .enabled(if: PrivateBus.daemonPath != nil))
    func notRunning() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let client = try await BlueZClient.connect(.address(bus.address))
        defer { client.connection.close() }
        let error = await #expect(throws: BlueZError.self) { try await client.managedObjects() }
        guard case .notRunning(let cause) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(cause.name == DBusError.Names.serviceUnknown)
        #expect(error?.description == "bluetooth is not available: bluez (org.bluez) is not running on the system bus")
    }

    @Test("lists bluezoo's two adapters, powered", .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func adapters() async throws {
        let pids = try await BlueZRig.with { rig in
            let client = try await BlueZClient.connect(.address(rig.bus.address))
            defer { client.connection.close() }
            let objects = try await client.managedObjects()
            #expect(objects.adapters.map(\.interfaceName) == ["hci0", "hci1"])
            #expect(objects.adapters.map { $0.address?.description } == BlueZRig.adapterAddresses)
            #expect(objects.adapters.allSatisfy { $0.isPowered })
            let first = try await client.adapter(named: nil)
            #expect(first.interfaceName == "hci0")
            let byAddress = try await client.adapter(named: "C0:DE:00:00:00:02")
            #expect(byAddress.interfaceName == "hci1")
            await #expect(throws: BlueZError.noAdapter(requested: "hci9")) { try await client.adapter(named: "hci9") }
            return rig.pids
        }
        #expect(pids.allSatisfy { isProcessGone($0) })
    }

    @Test(
        "unpowered adapters: adapterPoweredOff, StartDiscovery is notReady, and power on through Properties.Set",
        .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func unpowered() async throws {
        try await BlueZRig.with(poweredOn: false) { rig in
            let client = try await BlueZClient.connect(.address(rig.bus.address))
            defer { client.connection.close() }
            await #expect(throws: BlueZError.adapterPoweredOff("hci0")) { try await client.adapter(named: nil) }
            await #expect(throws: BlueZError.adapterPoweredOff("hci1")) { try await client.adapter(named: "hci1") }
            let hci0 = try #require(try await client.managedObjects().adapters.first)
            let error = await #expect(throws: BlueZError.self) { try await client.startDiscovery(on: hci0) }
            #expect(error?.cause?.name == "org.bluez.Error.NotReady")
            try await client.call(
                path: "/org/bluez/hci1", interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(true))])
            let powered = try await client.adapter(named: nil)
            #expect(powered.interfaceName == "hci1")
        }
    }

    @Test(
        "discovery with a UUID filter finds an advertising peripheral, and finds it again on a second scan",
        .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func discovery() async throws {
        let pids = try await BlueZRig.with { rig in
            let client = try await BlueZClient.connect(.address(rig.bus.address))
            defer { client.connection.close() }
            let adapter = try await client.adapter(named: "hci0")
            let events = try await client.events()
            try rig.startPeripheral(name: "DfuTarg", serviceUUIDs: [secureDFUService])
            try await client.setDiscoveryFilter(DiscoveryFilter(uuids: [secureDFUService]), on: adapter)
            try await client.startDiscovery(on: adapter)
            let found = try await first(events) { event -> DeviceInfo? in
                guard case .interfacesAdded(let path, let interfaces) = event,
                    let properties = interfaces["org.bluez.Device1"]
                else { return nil }
                return DeviceInfo(path: path, properties: properties)
            }
            let device = try #require(found, "no device within 20 s; rig log:\n\(rig.log)")
            #expect(device.address?.description == "C0:DE:00:00:00:02")
            #expect(device.name == "DfuTarg")
            #expect(device.uuids == [DFUCharacteristic.secureServiceUUID])
            #expect(device.adapterPath == adapter.path)
            try await client.stopDiscovery(on: adapter)

            // testrig.md defect 2: bluezoo alone never reports a known device again.
            try await client.startDiscovery(on: adapter)
            let seenAgain = try await first(events) { event -> Bool? in
                guard case .propertiesChanged(device.path, "org.bluez.Device1", let changed, _) = event,
                    changed["RSSI"] != nil
                else { return nil }
                return true
            }
            #expect(seenAgain == true, "rig log:\n\(rig.log)")
            try await client.stopDiscovery(on: adapter)
            let objects = try await client.managedObjects()
            #expect(objects.devices.map(\.path) == [device.path])
            return rig.pids
        }
        #expect(pids.count == 3)
        #expect(pids.allSatisfy { isProcessGone($0) })
    }

    @Test(
        "a UUID filter hides a peripheral that advertises another service (testrig.md defect 6)",
        .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func filterHidesOthers() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:03")
            let client = try await BlueZClient.connect(.address(rig.bus.address))
            defer { client.connection.close() }
            let adapter = try await client.adapter(named: "hci0")
            let events = try await client.events()
            try rig.startPeripheral(adapter: "hci1", name: "DfuTarg", serviceUUIDs: [secureDFUService])
            try rig.startPeripheral(
                adapter: "hci2", name: "Other", serviceUUIDs: ["0000180d-0000-1000-8000-00805f9b34fb"])
            try await client.setDiscoveryFilter(DiscoveryFilter(uuids: [secureDFUService]), on: adapter)
            try await client.startDiscovery(on: adapter)
            // bluezoo reports every adapter once per scan pass; three reports of the DFU target span at least
            // two full passes, so the other peripheral had its chance (its advertisement is registered by then).
            let reports = try await first(events) { event -> [String]? in
                switch event {
                case .interfacesAdded(let path, let interfaces) where interfaces["org.bluez.Device1"] != nil:
                    return [path]
                case .propertiesChanged(let path, "org.bluez.Device1", let changed, _) where changed["RSSI"] != nil:
                    return [path]
                default:
                    return nil
                }
            }
            #expect(reports == ["/org/bluez/hci0/dev_C0_DE_00_00_00_02"])
            var seen: [String] = []
            let done = try await withDeadline(.seconds(20)) { () -> [String] in
                var paths: [String] = []
                for await event in events {
                    if case .propertiesChanged(let path, "org.bluez.Device1", let changed, _) = event,
                        changed["RSSI"] != nil
                    {
                        paths.append(path)
                    }
                    if case .interfacesAdded(let path, _) = event { paths.append(path) }
                    if paths.filter({ $0.hasSuffix("02") }).count >= 3 { return paths }
                }
                return paths
            }
            seen = done ?? []
            #expect(seen.filter { $0.hasSuffix("02") }.count >= 3, "rig log:\n\(rig.log)")
            #expect(!seen.contains { $0.hasSuffix("03") })
            try await client.stopDiscovery(on: adapter)
        }
    }
}

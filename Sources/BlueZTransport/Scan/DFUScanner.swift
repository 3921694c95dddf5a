package import BlueZ
import DFUController
package import DeviceLink

/// A device seen advertising during a scan.
package struct ScannedDevice: Sendable, Equatable {
    /// Which firmware update protocol a device's advertisement offers.
    package enum DFUService: String, Sendable, Hashable, CaseIterable {
        /// Secure DFU (service 0xFE59): a Secure bootloader, or an application with buttonless DFU.
        case secure
        /// Legacy DFU (service 0x1530 of Nordic's base UUID): a legacy bootloader or application.
        case legacy
        /// SMP (MCUmgr service 8D53DC1D-1DB7-4CD3-868B-8A527460AA84): a Zephyr / nRF Connect SDK application with
        /// MCUmgr's Bluetooth transport, updated with MCUboot images.
        case smp
    }

    package var address: BluetoothAddress
    package var name: String?
    package var rssi: Int?
    /// The update services in the advertisement; empty for a device without any (listed with `--all` only).
    package var services: Set<DFUService>

    /// The UUIDs that mark each update service in an advertisement, lowercase as BlueZ reports them.
    static let serviceUUIDs: [(DFUService, String)] = [
        (.secure, DFUCharacteristic.secureServiceUUID.lowercased()),
        (.legacy, DFUCharacteristic.legacyServiceUUID.lowercased()),
        (.smp, LinkCharacteristic.smpServiceUUID.lowercased()),
    ]

    init?(_ device: DeviceInfo) {
        guard let address = device.address else { return nil }
        self.address = address
        name = device.name
        rssi = device.rssi
        let advertised = Set(device.uuids.map { $0.lowercased() })
        services = Set(Self.serviceUUIDs.filter { advertised.contains($0.1) }.map(\.0))
    }
}

/// Finds devices that advertise an update service (nRF5 Secure or legacy DFU, or SMP), through BlueZ discovery.
///
/// Devices are reported when BlueZ sees an advertisement during the scan (`InterfacesAdded`, or an `RSSI` change of
/// a device it already knew): a device object BlueZ kept from an earlier scan is not reported until it advertises
/// again, so a device that went away is never listed.
package struct DFUScanner: Sendable {
    private let client: BlueZClient
    private let restartInterval: Duration

    /// Creates a scanner.
    ///
    /// - Parameters:
    ///   - client: The BlueZ client.
    ///   - restartInterval: How often discovery is stopped and started again during a scan (as a connection's
    ///     search does, `BlueZGATTTransport.Options.discoveryRestartInterval`: each start is a chance to get
    ///     btvirt's one advertisement, which the kernel may drop).
    package init(client: BlueZClient, restartInterval: Duration = .seconds(1)) {
        self.client = client
        self.restartInterval = restartInterval
    }

    /// Scans for `duration` and returns the devices in the order they were first seen, one entry per address.
    ///
    /// - Parameters:
    ///   - adapter: The adapter to scan with.
    ///   - duration: How long to scan.
    ///   - includeAll: Whether to report devices without a DFU service too (no UUID filter).
    ///   - minimumRSSI: Report only devices at least this strong.
    ///   - onDevice: Called for each new device as it is found.
    /// - Throws: ``BlueZError``.
    package func scan(
        adapter: AdapterInfo,
        duration: Duration,
        includeAll: Bool = false,
        minimumRSSI: Int16? = nil,
        onDevice: (ScannedDevice) -> Void
    ) async throws(BlueZError) {
        let events = try await client.events()
        let uuids = includeAll ? [] : ScannedDevice.serviceUUIDs.map(\.1)
        try await client.setDiscoveryFilter(DiscoveryFilter(uuids: uuids, minimumRSSI: minimumRSSI), on: adapter)
        var known: [String: DeviceInfo] = [:]
        for device in try await client.managedObjects().devices where device.adapterPath == adapter.path {
            known[device.path] = device
        }
        try await client.startDiscovery(on: adapter)
        let (sightings, continuation) = AsyncStream<DeviceInfo>.makeStream()
        let initial = known
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var devices = initial
                for await event in events {
                    switch event {
                    case .interfacesAdded(let path, let interfaces):
                        guard let properties = interfaces[BlueZInterface.device] else { continue }
                        let device = DeviceInfo(path: path, properties: properties)
                        devices[path] = device
                        continuation.yield(device)
                    case .propertiesChanged(let path, let interface, let changed, _):
                        guard interface == BlueZInterface.device, let device = devices[path] else { continue }
                        let updated = device.updated(with: changed)
                        devices[path] = updated
                        if changed["RSSI"] != nil { continuation.yield(updated) }
                    case .interfacesRemoved:
                        continue
                    }
                }
            }
            group.addTask {
                // Discovery starts again every few seconds: a scan start may get a device's only advertisement,
                // and the kernel may lose it (btvirt 5.66, testrig.md).
                let end = ContinuousClock.now.advanced(by: duration)
                while ContinuousClock.now < end {
                    try? await Task.sleep(until: min(end, ContinuousClock.now.advanced(by: restartInterval)))
                    guard !Task.isCancelled, ContinuousClock.now < end else { break }
                    try? await client.stopDiscovery(on: adapter)
                    try? await client.startDiscovery(on: adapter)
                }
                continuation.finish()
            }
            var reported: Set<String> = []
            var forgotten: Set<String> = []
            for await device in sightings {
                guard device.adapterPath == adapter.path, let scanned = ScannedDevice(device) else { continue }
                if !includeAll, scanned.services.isEmpty, initial[device.path] != nil, !device.isPaired,
                    !device.isConnected, forgotten.insert(device.path).inserted
                {
                    // BlueZ saw it advertise a DFU service (the discovery filter asks for nothing else), but an
                    // object BlueZ kept from an earlier connection shows that connection's services as its UUIDs
                    // (bluetoothd 5.66, found on the real-bluetoothd tier). Forgotten, the device comes back at the
                    // next discovery start as a new object with the UUIDs it advertises now.
                    _ = try? await client.call(
                        path: adapter.path, interface: BlueZInterface.adapter, member: "RemoveDevice",
                        arguments: [.objectPath(device.path)])
                    continue
                }
                guard includeAll || !scanned.services.isEmpty else { continue }
                // A device without a measured RSSI (none, or 127: "not available") never passes an RSSI filter.
                if let minimumRSSI, (scanned.rssi ?? Int.min) < Int(minimumRSSI) { continue }
                guard reported.insert(scanned.address.description).inserted else { continue }
                onDevice(scanned)
            }
            group.cancelAll()
        }
        try? await client.stopDiscovery(on: adapter)
    }
}

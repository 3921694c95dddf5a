import BlueZ
import BlueZTransport
import DBus
public import NRFLoaderKit

/// A device seen advertising during a scan.
public struct DiscoveredDevice: Sendable, Equatable {
    /// Its address, `AA:BB:CC:DD:EE:FF`.
    public let address: String
    /// The name it advertises, if any (text from the air: escape it before printing it on a terminal).
    public let name: String?
    /// The signal strength in dBm, if known.
    public let rssi: Int?
    /// The update services it advertises: `secure` (Secure DFU), `legacy` (legacy DFU), `smp` (MCUmgr).
    public let services: [String]
    /// The adapter that saw it, such as `hci0`.
    public let adapter: String

    init(_ scanned: ScannedDevice, adapter: String) {
        address = scanned.address.description
        name = scanned.name
        rssi = scanned.rssi
        services = ScannedDevice.DFUService.allCases.filter { scanned.services.contains($0) }.map(\.rawValue)
        self.adapter = adapter
    }
}

/// Finds devices that advertise an update service (Secure DFU, legacy DFU or SMP) through BlueZ: `nrfloader scan`.
public struct BluetoothScanner: Sendable {
    /// The adapter, such as `hci0`; `nil` for the first powered one.
    public var adapter: String?

    /// A scanner on `adapter`.
    public init(adapter: String? = nil) {
        self.adapter = adapter
    }

    /// Scans for `duration`, reporting each new device as it is found.
    ///
    /// - Parameters:
    ///   - duration: How long to scan.
    ///   - includeAll: Whether to report devices without an update service too.
    ///   - minimumRSSI: Report only devices at least this strong, in dBm.
    ///   - onDevice: Called for each new device, once per address.
    /// - Returns: The adapter used and the devices, in the order they were first seen.
    /// - Throws: `UpdateError` with status 69 (`unavailable`) when BlueZ or the adapter is missing.
    @discardableResult
    public func scan(
        for duration: Duration, includeAll: Bool = false, minimumRSSI: Int? = nil,
        onDevice: (DiscoveredDevice) -> Void = { _ in }
    ) async throws(UpdateError) -> BluetoothScan {
        var found: [DiscoveredDevice] = []
        do {
            let client = try await BlueZClient.connect()
            let chosen = try await client.adapter(named: adapter)
            try await DFUScanner(client: client).scan(
                adapter: chosen, duration: duration, includeAll: includeAll,
                minimumRSSI: minimumRSSI.map { Int16(clamping: $0) }
            ) { scanned in
                let device = DiscoveredDevice(scanned, adapter: chosen.interfaceName)
                found.append(device)
                onDevice(device)
            }
            return BluetoothScan(adapter: chosen.interfaceName, devices: found)
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
    }
}

/// What a scan found.
public struct BluetoothScan: Sendable {
    /// The adapter that scanned, such as `hci0`.
    public let adapter: String
    /// The devices, in the order they were first seen, each once.
    public let devices: [DiscoveredDevice]
}

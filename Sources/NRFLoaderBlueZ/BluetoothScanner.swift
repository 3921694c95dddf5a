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
    ///   - onDevice: Called for each new device, once per address.
    /// - Returns: The devices, in the order they were first seen.
    /// - Throws: `UpdateError` with `ExitStatus/unavailable` when BlueZ or the adapter is missing.
    @discardableResult
    public func scan(
        for duration: Duration, includeAll: Bool = false, onDevice: (DiscoveredDevice) -> Void = { _ in }
    ) async throws(UpdateError) -> [DiscoveredDevice] {
        var found: [DiscoveredDevice] = []
        do {
            let client = try await BlueZClient.connect()
            let chosen = try await client.adapter(named: adapter)
            try await DFUScanner(client: client).scan(adapter: chosen, duration: duration, includeAll: includeAll) {
                scanned in
                let device = DiscoveredDevice(scanned, adapter: chosen.interfaceName)
                found.append(device)
                onDevice(device)
            }
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
        return found
    }
}

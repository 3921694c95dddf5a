import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import Synchronization

/// The devices the station offers: its simulated devices, the serial ports present now, and what the latest
/// Bluetooth scans found.
final class DeviceDirectory: Sendable {
    /// Where Bluetooth scanning stands, for the page.
    enum BluetoothState: Sendable {
        case off
        case starting
        case scanning(adapter: String)
        case unavailable(message: String)
    }

    private struct Scanned: Sendable {
        var state = BluetoothState.starting
        var devices: [String: StationDevice] = [:]
    }

    private let simulated: [StationDevice]
    private let offersSerialPorts: Bool
    private let scanned: Mutex<Scanned>

    init(configuration: StationConfiguration) throws(UpdateError) {
        simulated = try StationDevice.simulated(
            configuration.simulatedDevices, options: configuration.simulatorOptions)
        offersSerialPorts = configuration.offersSerialPorts
        scanned = Mutex(Scanned(state: configuration.scansBluetooth ? .starting : .off))
    }

    /// Every device, simulated ones first, then serial ports, then Bluetooth devices by address.
    var devices: [StationDevice] {
        let ports = offersSerialPorts ? SerialScanner().ports().map(StationDevice.serial) : []
        let bluetooth = scanned.withLock { $0.devices.values.sorted { $0.id < $1.id } }
        return simulated + ports + bluetooth
    }

    /// The device with `id`, if it is offered now.
    func device(id: String) -> StationDevice? {
        if let device = simulated.first(where: { $0.id == id }) { return device }
        if let device = scanned.withLock({ $0.devices[id] }) { return device }
        guard offersSerialPorts else { return nil }
        return SerialScanner().ports().first { $0.path == id }.map(StationDevice.serial)
    }

    var bluetoothJSON: JSONValue {
        switch scanned.withLock({ $0.state }) {
        case .off: .object(["state": .string("off"), "message": .null])
        case .starting: .object(["state": .string("starting"), "message": .null])
        case .scanning(let adapter): .object(["state": .string("scanning"), "message": .string(adapter)])
        case .unavailable(let message): .object(["state": .string("unavailable"), "message": .string(message)])
        }
    }

    /// Scans for Bluetooth devices until the task is cancelled: 5-second scans back to back, each one's devices
    /// replacing the last one's; when BlueZ or the adapter is missing, the reason is shown and a scan is tried
    /// again every 10 seconds.
    ///
    /// - Parameters:
    ///   - adapter: The adapter, or `nil` for the first powered one.
    ///   - isPaused: Whether to hold the next scan (a Bluetooth update runs); the last devices stay listed.
    func scanBluetooth(adapter: String?, isPaused: @Sendable () -> Bool) async {
        let scanner = BluetoothScanner(adapter: adapter)
        while !Task.isCancelled {
            if isPaused() {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            do throws(UpdateError) {
                let scan = try await scanner.scan(for: .seconds(5))
                let devices = Dictionary(scan.devices.map { ($0.address, StationDevice.bluetooth($0)) }) { $1 }
                scanned.withLock {
                    $0.state = .scanning(adapter: scan.adapter)
                    $0.devices = devices
                }
            } catch {
                scanned.withLock {
                    $0.state = .unavailable(message: error.message)
                    $0.devices = [:]
                }
                try? await Task.sleep(for: .seconds(10))
            }
        }
    }
}

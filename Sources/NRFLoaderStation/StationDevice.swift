import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator

/// A device the station can update: a simulated one, a Bluetooth device a scan found, or a serial port.
struct StationDevice: Sendable {
    /// How the station reaches it.
    enum Transport: String, Sendable {
        case simulated
        case bluetooth
        case serial
    }

    /// The id jobs name it by: `sim-1`, an address, or a port's path.
    let id: String
    /// How people know it: `sim`, `sim:smp` (with `#2` for a second of a kind), the address, or the path.
    let label: String
    /// The advertised name, or the serial adapter's product name (text from outside: escaped on the page).
    let name: String?
    /// The signal strength in dBm, for a Bluetooth device.
    let rssi: Int?
    let transport: Transport
    /// `dfu`, `smp`, or both.
    let protocols: [String]
    /// What updates it.
    let target: @Sendable () throws(UpdateError) -> UpdateTarget

    var json: JSONValue {
        .object([
            "id": .string(id), "label": .string(label), "name": .optional(name) { .string($0) },
            "rssi": .optional(rssi) { .int($0) }, "transport": .string(transport.rawValue),
            "protocols": .array(protocols.map { .string($0) }),
        ])
    }

    /// The simulated devices of `kinds`, each its own `SimulatedTarget` (kept while the station runs), numbered
    /// `sim-1`, `sim-2`, … The first nRF5 device keeps the simulator's default address, as `upload --target sim`
    /// does; the others get one each.
    static func simulated(_ kinds: [SimulatedDeviceKind], options: SimulatedDeviceOptions) throws(UpdateError)
        -> [StationDevice]
    {
        var devices: [StationDevice] = []
        var seen: [SimulatedDeviceKind: Int] = [:]
        for (index, kind) in kinds.enumerated() {
            let count = seen[kind, default: 0] + 1
            seen[kind] = count
            var deviceOptions = options
            deviceOptions.name = kind.targetName
            if kind != .smp && index > 0 {
                deviceOptions.address = "C0:DE:00:00:\(hexByte(index)):01"
            }
            let simulated = try SimulatedTarget(kind, options: deviceOptions)
            devices.append(
                StationDevice(
                    id: "sim-\(index + 1)", label: count == 1 ? kind.targetName : "\(kind.targetName) #\(count)",
                    name: description(of: kind), rssi: nil, transport: .simulated,
                    protocols: [kind == .smp ? "smp" : "dfu"], target: { simulated.target }))
        }
        return devices
    }

    /// A device a BlueZ scan found.
    static func bluetooth(_ found: DiscoveredDevice) -> StationDevice {
        var protocols: [String] = []
        if found.services.contains("secure") || found.services.contains("legacy") { protocols.append("dfu") }
        if found.services.contains("smp") { protocols.append("smp") }
        return StationDevice(
            id: found.address, label: found.address, name: found.name, rssi: found.rssi, transport: .bluetooth,
            protocols: protocols,
            target: { () throws(UpdateError) -> UpdateTarget in
                var options = BluetoothOptions()
                options.adapter = found.adapter
                return try .bluetooth(address: found.address, options: options)
            })
    }

    /// A serial port: nRF5 serial DFU or SMP over Zephyr's console framing, as the firmware asks.
    static func serial(_ port: SerialPortInfo) -> StationDevice {
        StationDevice(
            id: port.path, label: port.path, name: port.product, rssi: nil, transport: .serial,
            protocols: ["dfu", "smp"], target: { .serial(port.path) })
    }

    private static func description(of kind: SimulatedDeviceKind) -> String {
        switch kind {
        case .secure: "simulated Secure DFU bootloader"
        case .buttonless: "simulated application with buttonless DFU"
        case .legacy: "simulated legacy DFU bootloader"
        case .legacyV1: "simulated legacy DFU bootloader (nRF51 SDK 4-5)"
        case .smp: "simulated Zephyr device with MCUboot (SMP)"
        }
    }

    private static func hexByte(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[(value >> 4) & 0xF], digits[value & 0xF]])
    }
}

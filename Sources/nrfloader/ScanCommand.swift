import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit

/// `nrfloader scan`: devices advertising a DFU or SMP service, through BlueZ.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract:
            "List devices advertising Secure or legacy DFU or SMP (MCUmgr), through BlueZ on this machine's adapter.",
        discussion: """
            Scans for --timeout seconds. Each device is listed once, when it is first seen advertising. The DFU \
            column (and the "dfu" key) names the update protocols it offers: secure, legacy, smp. With --json, one \
            JSON object per device is printed as it is found.
            """
    )

    @Option(help: "The adapter to scan with, e.g. hci0 (default: the first powered adapter).")
    var adapter: String?

    @Option(help: "Seconds to scan.")
    var timeout: Int = 5

    @Option(help: "List only devices whose advertised name matches this regular expression.")
    var name: String?

    @Option(help: "List only the device with this address.")
    var address: String?

    @Option(help: "List only devices at least this strong, in dBm (e.g. -70).")
    var rssi: Int16?

    @Flag(help: "List every device, not only those advertising a DFU or SMP service.")
    var all = false

    @Flag(help: "List Nordic and Adafruit USB serial ports (from sysfs) instead of scanning Bluetooth.")
    var serial = false

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
        if let name {
            do { _ = try Regex(name) } catch {
                throw ValidationError("--name '\(name)' is not a valid regular expression")
            }
        }
        if let address {
            do { _ = try BluetoothDeviceAddress(parsing: address) } catch {
                throw ValidationError("--address: \(error)")
            }
        }
    }

    func run() async throws {
        if serial { return SerialScan.run(outputOptions) }
        let pattern = try name.map { try Regex($0) }
        let wanted = try address.map { try BluetoothDeviceAddress(parsing: $0).description }
        var found: [DiscoveredDevice] = []
        let scan = try await BluetoothScanner(adapter: adapter).scan(
            for: .seconds(timeout), includeAll: all, minimumRSSI: rssi.map(Int.init)
        ) { device in
            if let wanted, device.address != wanted { return }
            if let pattern, (try? pattern.firstMatch(in: device.name ?? "")) == nil { return }
            found.append(device)
            if outputOptions.json { Console.json(Self.json(device)) }
        }
        guard !outputOptions.json else {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "devices": .int(found.count),
                    "adapter": .string(scan.adapter), "seconds": .int(timeout),
                ]))
            return
        }
        let rows = found.map { device in
            [
                device.address, device.name ?? "-", device.rssi.map { String($0) } ?? "-",
                device.services.isEmpty ? "-" : device.services.sorted().joined(separator: ","),
            ]
        }
        Console.result(table([["ADDRESS", "NAME", "RSSI", "DFU"]] + rows, rightAligned: [2]))
        if !outputOptions.quiet {
            Console.note("\(found.count) device\(found.count == 1 ? "" : "s") found in \(timeout) s on \(scan.adapter)")
        }
    }

    private static func json(_ device: DiscoveredDevice) -> JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "event": .string("device"), "address": .string(device.address),
            "name": .optional(device.name) { .string($0) }, "rssi": .optional(device.rssi) { .int($0) },
            "dfu": .array(device.services.sorted().map { .string($0) }),
        ])
    }
}

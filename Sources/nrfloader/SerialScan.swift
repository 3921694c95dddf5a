import NRFLoaderKit
import NRFLoaderSerial

/// `scan --serial`: the Nordic, Adafruit and J-Link USB serial ports, from sysfs (no root needed).
enum SerialScan {
    /// Prints the ports: a table, or one JSON object per port.
    ///
    /// - Parameter output: The output options of the scan.
    static func run(_ output: OutputOptions) {
        let ports = SerialScanner().ports()
        if output.json {
            // As `scan` over BlueZ: one `device` event per port, then the one final result.
            for port in ports { Console.json(json(port)) }
            Console.json(.object(["schema": .int(JSONValue.schemaVersion), "devices": .int(ports.count)]))
            return
        }
        let rows = ports.map { port in
            [
                port.path, "\(hex4(port.vendorID)):\(hex4(port.productID))", port.kind?.rawValue ?? "-",
                (port.serialNumber ?? "-").escapedForTerminal, (port.product ?? "-").escapedForTerminal,
            ]
        }
        Console.result(table([["PORT", "USB ID", "KIND", "SERIAL", "PRODUCT"]] + rows))
        if !output.quiet { Console.note("\(ports.count) serial port\(ports.count == 1 ? "" : "s") found") }
    }

    private static func json(_ port: SerialPortInfo) -> JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "event": .string("device"), "path": .string(port.path),
            "vendor_id": .string(hex4(port.vendorID)), "product_id": .string(hex4(port.productID)),
            "kind": .optional(port.kind) { .string($0.rawValue) },
            "serial_number": .optional(port.serialNumber) { .string($0) },
            "product": .optional(port.product) { .string($0) },
        ])
    }

    private static func hex4(_ value: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<4).reversed().map { digits[Int(value >> (4 * $0)) & 0xF] })
    }
}

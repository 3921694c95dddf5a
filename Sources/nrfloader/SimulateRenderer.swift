import Checksums
import DFUSimulator
import HexConverter
import NRFLoaderKit
import SimulatedPeripheral
import Synchronization

/// Prints `simulate`'s events: results on stdout (ready, activations, reboots), the device's log on stderr.
final class SimulateRenderer: Sendable {
    private struct Progress {
        var isReady = false
        var activations = 0
        var failure: (any Error)?
    }

    private let json: Bool
    private let quiet: Bool
    private let imageDirectory: String?
    private let exitAfter: Int?
    private let stop: @Sendable () -> Void
    private let progress = Mutex(Progress())

    init(json: Bool, quiet: Bool, imageDirectory: String?, exitAfter: Int?, stop: @escaping @Sendable () -> Void) {
        self.json = json
        self.quiet = quiet
        self.imageDirectory = imageDirectory
        self.exitAfter = exitAfter
        self.stop = stop
    }

    /// The first error saving an image, which ended the simulation.
    var failure: (any Error)? { progress.withLock { $0.failure } }

    /// How many activations the device performed.
    var activations: Int { progress.withLock { $0.activations } }

    func handle(_ event: SimulatedPeripheralEvent) {
        switch event {
        case .registered(let registration):
            let (isFirst, isDone) = progress.withLock { progress in
                defer { progress.isReady = true }
                return (!progress.isReady, exitAfter.map { progress.activations >= $0 } ?? false)
            }
            let label = isFirst ? "ready" : "advertising"
            let advertisement = registration.advertisement
            let address = registration.adapter.address?.description ?? "?"
            result(
                "\(label): \(advertisement.mode) '\(advertisement.name)' on \(registration.adapter.interfaceName) "
                    + "(\(address))",
                [
                    "event": .string(label), "adapter": .string(registration.adapter.interfaceName),
                    "address": .string(address), "mode": .string(advertisement.mode.description),
                    "name": .string(advertisement.name),
                    "services": .array(registration.serviceUUIDs.map { .string($0) }),
                ])
            if isDone { stop() }
        case .addressUnavailable(let wanted, let adapter):
            note(
                "note: the device now wants address \(wanted); no adapter has it, so it stays on \(adapter.interfaceName)"
            )
        case .connected(let central, let mtu):
            note("connected: \(Self.address(of: central)), MTU \(mtu)")
            if json {
                Console.json(
                    Self.object("connected", ["central": .string(Self.address(of: central)), "mtu": .int(mtu)]))
            }
        case .disconnected(let central):
            note("disconnected: \(Self.address(of: central))")
            if json { Console.json(Self.object("disconnected", ["central": .string(Self.address(of: central))])) }
        case .written(let role, let bytes):
            note("write \(role): \(Self.hexDump(bytes))")
        case .output(let event):
            switch event.output {
            case .writeAcknowledged, .connected: return  // Noise, or reported by the peripheral's own event.
            default: note("\(event)")
            }
        case .log(let entry):
            note("\(entry)")
        case .warning(let text):
            note("warning: \(text)")
        case .activated(let images):
            activated(images)
        }
    }

    private func activated(_ images: [FirmwareType: [UInt8]]) {
        var described: [JSONValue] = []
        var lines: [String] = []
        for (type, image) in images.sorted(by: { Self.fileName($0.key) < Self.fileName($1.key) }) {
            var path: String?
            if let imageDirectory {
                path = imageDirectory + "/" + Self.fileName(type)
                do {
                    let output = try OutputFile(path: path ?? "")
                    try output.write(image)
                    try output.commit()
                } catch {
                    progress.withLock { if $0.failure == nil { $0.failure = error } }
                    stop()
                    return
                }
            }
            let crc = hex(CRC32.checksum(image), width: 8)
            lines.append("activated: \(Self.typeName(type)), \(image.count) bytes, CRC-32 \(crc)")
            described.append(
                .object([
                    "type": .string(Self.typeName(type)), "size": .int(image.count), "crc32": .string(crc),
                    "file": .optional(path) { .string($0) },
                ]))
        }
        if json { Console.json(Self.object("activated", ["images": .array(described)])) }
        if !json { for line in lines { Console.result(line) } }
        progress.withLock { $0.activations += 1 }
    }

    private func result(_ text: String, _ fields: [String: JSONValue]) {
        if json {
            Console.json(.object(fields.merging(["schema": .int(JSONValue.schemaVersion)]) { $1 }))
        } else {
            Console.result(text.escapedForTerminal)
        }
    }

    private func note(_ text: String) {
        if !quiet { Console.note(text.escapedForTerminal) }
    }

    private static func object(_ event: String, _ fields: [String: JSONValue]) -> JSONValue {
        .object(fields.merging(["schema": .int(JSONValue.schemaVersion), "event": .string(event)]) { $1 })
    }

    /// `AA:BB:…` from a `Device1` path (`/org/bluez/hci1/dev_AA_BB_…`).
    private static func address(of central: String) -> String {
        let last = central.split(separator: "/").last.map(String.init) ?? central
        return last.hasPrefix("dev_") ? last.dropFirst(4).split(separator: "_").joined(separator: ":") : last
    }

    private static func typeName(_ type: FirmwareType) -> String {
        switch type {
        case .application: "application"
        case .softDevice: "softdevice"
        case .bootloader: "bootloader"
        }
    }

    private static func fileName(_ type: FirmwareType) -> String { typeName(type) + ".bin" }

    private static func hexDump(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
    }
}

import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization

/// Prints `simulate`'s events: results on stdout (ready, activations, advertising again), the device's exchange and
/// log on stderr; writes what the device activated (nRF5) or its slots (SMP) to `--save-images`.
final class SimulateRenderer: Sendable {
    private struct Progress {
        var isReady = false
        var failure: (any Error)?
    }

    private let json: Bool
    private let quiet: Bool
    private let imageDirectory: String?
    private let stop: @Sendable () -> Void
    private let progress = Mutex(Progress())

    init(json: Bool, quiet: Bool, imageDirectory: String?, stop: @escaping @Sendable () -> Void) {
        self.json = json
        self.quiet = quiet
        self.imageDirectory = imageDirectory
        self.stop = stop
    }

    /// The first error saving an image, which ended the simulation.
    var failure: (any Error)? { progress.withLock { $0.failure } }

    func handle(_ event: BluetoothDeviceSimulator.Event) {
        switch event {
        case .advertising(let advertisement):
            let isFirst = progress.withLock { progress in
                defer { progress.isReady = true }
                return !progress.isReady
            }
            let label = isFirst ? "ready" : "advertising"
            let address = advertisement.adapterAddress ?? "?"
            result(
                "\(label): \(advertisement.mode) '\(advertisement.name)' on \(advertisement.adapter) (\(address))",
                [
                    "event": .string(label), "adapter": .string(advertisement.adapter), "address": .string(address),
                    "mode": .string(advertisement.mode), "name": .string(advertisement.name),
                    "services": .array(advertisement.serviceUUIDs.map { .string($0) }),
                ])
        case .addressUnavailable(let wanted, let adapter):
            note("note: the device now wants address \(wanted); no adapter has it, so it stays on \(adapter)")
        case .connected(let central, let mtu):
            note("connected: \(central), MTU \(mtu)")
            if json { Console.json(Self.object("connected", ["central": .string(central), "mtu": .int(mtu)])) }
        case .disconnected(let central):
            note("disconnected: \(central)")
            if json { Console.json(Self.object("disconnected", ["central": .string(central)])) }
        case .written(let characteristic, let bytes):
            note("write \(characteristic): \(Self.hexDump(bytes))")
        case .log(let line):
            note(line)
        case .warning(let text):
            note("warning: \(text)")
        case .activated(let images):
            activated(images)
        case .booted(let swapped, let description):
            guard swapped else {
                note(description)
                return
            }
            result("activated: \(description)", ["event": .string("activated"), "boot": .string(description)])
        case .slots(let slots):
            save(slots)
        }
    }

    /// nRF5: writes each activated image to `--save-images` and reports it.
    private func activated(_ images: [SimulatedTarget.Image]) {
        var described: [JSONValue] = []
        var lines: [String] = []
        for image in images {
            var path: String?
            if let imageDirectory {
                path = imageDirectory + "/" + image.name + ".bin"
                do {
                    let output = try OutputFile(path: path ?? "")
                    try output.write(image.bytes)
                    try output.commit()
                } catch {
                    fail(error)
                    return
                }
            }
            let crc = Self.hex8(image.crc32)
            lines.append("activated: \(image.name), \(image.bytes.count) bytes, CRC-32 \(crc)")
            described.append(
                .object([
                    "type": .string(image.name), "size": .int(image.bytes.count), "crc32": .string(crc),
                    "file": .optional(path) { .string($0) },
                ]))
        }
        if json { Console.json(Self.object("activated", ["images": .array(described)])) }
        if !json { for line in lines { Console.result(line) } }
    }

    /// SMP: writes the slots to `--save-images` (slot0.bin, slot1.bin, and slot2.bin, slot3.bin for image 1, …),
    /// each by a temporary file and a rename.
    private func save(_ slots: [SimulatedTarget.Image]) {
        guard let imageDirectory else { return }
        do {
            for slot in slots {
                let output = try OutputFile(path: imageDirectory + "/" + slot.name + ".bin")
                try output.write(slot.bytes)
                try output.commit()
            }
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: any Error) {
        progress.withLock { if $0.failure == nil { $0.failure = error } }
        stop()
    }

    /// The run's summary: activations and, for SMP, what the device received of image uploads.
    func finish(_ report: BluetoothDeviceSimulator.Report) {
        guard let upload = report.smpUpload else {
            if json {
                Console.json(
                    .object(["schema": .int(JSONValue.schemaVersion), "activations": .int(report.activations)]))
            }
            return
        }
        if json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "activations": .int(report.activations),
                    "upload": .object([
                        "requests": .int(upload.requests), "bytes_written": .int(upload.bytesWritten),
                        "resume_probes": .int(upload.resumeProbes), "stale_chunks": .int(upload.staleChunks),
                        "stale_bytes": .int(upload.staleBytes),
                    ]),
                ]))
        } else if !quiet {
            Console.note(
                "simulate: \(report.activations) activation(s); image upload: \(upload.requests) requests, "
                    + "\(upload.bytesWritten) bytes written, \(upload.resumeProbes) resume probe(s), "
                    + "\(upload.staleChunks) stale chunk(s) (\(upload.staleBytes) bytes)")
        }
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

    /// `0x` and eight upper-case hex digits.
    private static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    private static func hexDump(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
    }
}

import NRFLoaderKit
import SimulatedPeripheral
import Synchronization

/// Prints `simulate --kind smp`'s events: results on stdout (ready, activations, advertising again), the device's
/// exchange and log on stderr; writes the slots to `--save-images` and stops after `--exit-after` activations once
/// the central that came back after the last one has left.
final class SMPSimulateRenderer: Sendable {
    private struct Progress {
        var isReady = false
        var activations = 0
        /// A central connected after the latest activation (it checks and confirms the new image).
        var connectedSinceActivation = false
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

    /// The first error saving the slots, which ended the simulation.
    var failure: (any Error)? { progress.withLock { $0.failure } }

    func handle(_ event: SMPPeripheralEvent) {
        switch event {
        case .registered(let adapter, let name, let services):
            let isFirst = progress.withLock { progress in
                defer { progress.isReady = true }
                return !progress.isReady
            }
            let label = isFirst ? "ready" : "advertising"
            let address = adapter.address?.description ?? "?"
            result(
                "\(label): smp '\(name)' on \(adapter.interfaceName) (\(address))",
                [
                    "event": .string(label), "adapter": .string(adapter.interfaceName), "address": .string(address),
                    "mode": .string("smp"), "name": .string(name), "services": .array(services.map { .string($0) }),
                ])
        case .connected(let central, let mtu):
            progress.withLock { $0.connectedSinceActivation = true }
            note("connected: \(Self.address(of: central)), MTU \(mtu)")
            if json {
                Console.json(
                    Self.object("connected", ["central": .string(Self.address(of: central)), "mtu": .int(mtu)]))
            }
        case .disconnected(let central, let slots, _):
            note("disconnected: \(Self.address(of: central))")
            if json { Console.json(Self.object("disconnected", ["central": .string(Self.address(of: central))])) }
            save(slots)
            let isDone = progress.withLock { progress in
                guard let exitAfter else { return false }
                return progress.activations >= exitAfter && progress.connectedSinceActivation
            }
            if isDone { stop() }
        case .exchange(let line), .log(let line):
            note(line)
        case .booted(let swapped, let description, let slots):
            save(slots)
            guard swapped else {
                note(description)
                return
            }
            progress.withLock { progress in
                progress.activations += 1
                progress.connectedSinceActivation = false
            }
            result("activated: \(description)", ["event": .string("activated"), "boot": .string(description)])
        case .warning(let text):
            note("warning: \(text)")
        }
    }

    /// Writes the slots to `--save-images` (slot0.bin, slot1.bin, and slot2.bin, slot3.bin for image 1, …), each by a
    /// temporary file and a rename.
    func save(_ slots: SMPSlots) {
        guard let imageDirectory else { return }
        do {
            for (index, bytes) in slots.all.enumerated() {
                let output = try OutputFile(path: imageDirectory + "/slot\(index).bin")
                try output.write(bytes)
                try output.commit()
            }
        } catch {
            progress.withLock { if $0.failure == nil { $0.failure = error } }
            stop()
        }
    }

    /// The run's summary: activations and what the device received of image uploads.
    func finish(tally: SMPUploadTally) {
        let activations = progress.withLock { $0.activations }
        if json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "activations": .int(activations),
                    "upload": .object([
                        "requests": .int(tally.requests), "bytes_written": .int(tally.bytesWritten),
                        "resume_probes": .int(tally.resumeProbes), "stale_chunks": .int(tally.staleChunks),
                        "stale_bytes": .int(tally.staleBytes),
                    ]),
                ]))
        } else if !quiet {
            Console.note(
                "simulate: \(activations) activation(s); image upload: \(tally.requests) requests, "
                    + "\(tally.bytesWritten) bytes written, \(tally.resumeProbes) resume probe(s), "
                    + "\(tally.staleChunks) stale chunk(s) (\(tally.staleBytes) bytes)")
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

    /// `AA:BB:…` from a `Device1` path (`/org/bluez/hci1/dev_AA_BB_…`).
    private static func address(of central: String) -> String {
        let last = central.split(separator: "/").last.map(String.init) ?? central
        return last.hasPrefix("dev_") ? last.dropFirst(4).split(separator: "_").joined(separator: ":") : last
    }
}

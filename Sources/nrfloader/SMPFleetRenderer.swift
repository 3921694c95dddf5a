import NRFLoaderKit
import Synchronization

/// Shows an SMP fleet as the DFU fleet is shown.
///
/// With `--json`, each device's events carry its `device` and
/// `adapter` (`begin`, `phase`, `progress` every tenth of the image, `log`, then its `result` or `error`) and a
/// `summary` object ends the stream; otherwise a line per device and phase on stderr, and the summary table on stdout.
/// A terminal gets the same lines (no redraw in place).
final class SMPFleetRenderer: Sendable {
    private struct Device {
        let address: String
        let lane: String
        var lastTenth = -1
        var startedAt: Duration?
        var elapsed: Duration?
        var bytesUploaded = 0
        var outcome: FleetUpdate.Outcome?
    }

    private let mode: UploadRenderer.Mode
    private let image: MCUbootImageInfo
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let devices: Mutex<[Device]>

    init(mode: UploadRenderer.Mode, image: MCUbootImageInfo, devices: [(address: String, lane: String)]) {
        self.mode = mode
        self.image = image
        started = clock.now
        self.devices = Mutex(devices.map { Device(address: $0.address, lane: $0.lane) })
    }

    func begin(parallel: Int) {
        guard mode != .json, mode != .quiet else { return }
        let count = devices.withLock { $0.count }
        Console.note(
            "uploading \(image.file.escapedForTerminal) (MCUboot image \(image.version), \(image.size) "
                + "bytes) to \(count) devices over SMP, up to \(parallel) at once per adapter")
    }

    func handle(_ event: FleetUpdate.Event) {
        let index = event.device
        let now = started.duration(to: clock.now)
        devices.withLock { devices in
            switch event.kind {
            case .started:
                devices[index].startedAt = now
                if mode == .json {
                    Console.json(
                        object(
                            "begin", devices[index],
                            [
                                "input": .string(image.file), "protocol": .string("smp"),
                                "size": .int(image.size), "version": .string(image.version),
                                "hash": .string(hexString(image.storedHash ?? [])),
                            ]))
                }
            case .update(.phase(let report)):
                devices[index].bytesUploaded = report.bytesConfirmed
                if mode == .json {
                    Console.json(object("phase", devices[index], Self.members(report)))
                } else {
                    line(devices[index], report.phase.description)
                }
            case .update(.progress(let report)):
                devices[index].bytesUploaded = report.bytesConfirmed
                let tenth = report.totalBytes > 0 ? report.bytesConfirmed * 10 / report.totalBytes : 0
                guard mode == .json, tenth > devices[index].lastTenth else { return }
                devices[index].lastTenth = tenth
                Console.json(object("progress", devices[index], Self.members(report)))
            case .update(.log(let text)):
                if mode == .json { Console.json(object("log", devices[index], ["message": .string(text)])) }
            case .update:
                break
            case .finished(let outcome):
                devices[index].outcome = outcome
                devices[index].elapsed = devices[index].startedAt.map { now - $0 }
                finished(devices[index])
            }
        }
    }

    func summary(exitStatus: ExitStatus) {
        let devices = devices.withLock { $0 }
        let failed = devices.filter { $0.outcome?.exitStatus != .success }.count
        if mode == .json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("summary"),
                    "devices": .array(devices.map(Self.summaryJSON)), "completed": .int(devices.count - failed),
                    "failed": .int(failed), "exit_status": .int(Int(exitStatus.rawValue)),
                    "elapsed_ms": .int(started.duration(to: clock.now).milliseconds),
                ]))
            return
        }
        let rows = devices.map { device in
            [
                device.address, device.lane, Self.status(device), String(device.outcome?.exitStatus.rawValue ?? 0),
                String(device.bytesUploaded), Self.message(device).map(\.escapedForTerminal) ?? "-",
            ]
        }
        Console.result(
            table([["DEVICE", "ADAPTER", "STATUS", "EXIT", "UPLOADED", "MESSAGE"]] + rows, rightAligned: [3, 4]))
        if mode != .quiet {
            Console.note(
                "\(devices.count - failed) of \(devices.count) devices updated in "
                    + formatSeconds(started.duration(to: clock.now))
                    + (failed > 0 ? ", \(failed) failed (exit \(exitStatus.rawValue))" : ""))
        }
    }

    private func finished(_ device: Device) {
        switch (mode, device.outcome) {
        case (.json, .completed(let summary)?):
            guard let result = summary.smpOutcome else { return }
            // A device's result is an event of the run (the summary is the run's verdict): printed at once.
            Console.result(
                object(
                    "result", device,
                    [
                        "protocol": .string("smp"), "state": .string(result.state.rawValue),
                        "bytes_uploaded": .int(result.bytesUploaded),
                        "image": .object([
                            "slot": .int(result.slot.slot), "version": .string(result.slot.version),
                            "hash": .string(hexString(result.slot.hash)), "active": .bool(result.slot.isActive),
                            "confirmed": .bool(result.slot.isConfirmed), "pending": .bool(result.slot.isPending),
                            "permanent": .bool(result.slot.isPermanent),
                        ]),
                        "reconnects": .int(result.reconnects),
                        "elapsed_ms": .optional(device.elapsed) { .int($0.milliseconds) },
                    ]
                ).text)
        case (.json, _):
            Console.json(
                object(
                    "error", device,
                    [
                        "message": .string(Self.message(device) ?? Self.status(device)),
                        "exit_status": .int(Int(device.outcome?.exitStatus.rawValue ?? 0)),
                    ]))
        case (.lines, _), (.terminal, _):
            line(device, Self.status(device) + (Self.message(device).map { ": \($0)" } ?? ""))
        case (.quiet, _):
            break
        }
    }

    private func line(_ device: Device, _ text: String) {
        guard mode != .quiet else { return }
        Console.note("\(device.address): \(text.escapedForTerminal)")
    }

    /// An event object about one device: `schema`, `event`, `device` and `adapter` plus `members`.
    private func object(_ event: String, _ device: Device, _ members: [String: JSONValue]) -> JSONValue {
        var members = members
        members["schema"] = .int(JSONValue.schemaVersion)
        members["event"] = .string(event)
        members["device"] = .string(device.address)
        members["adapter"] = .string(device.lane)
        return .object(members)
    }

    private static func status(_ device: Device) -> String {
        switch device.outcome {
        case .completed(let summary)?: summary.smpOutcome?.state.rawValue ?? "completed"
        case .failed?: "failed"
        case .notStarted?: "not started"
        case nil: "waiting"
        }
    }

    /// What the device shows (completed) or why it failed; the device's version string escaped by the caller.
    private static func message(_ device: Device) -> String? {
        switch device.outcome {
        case .completed(let summary)?:
            summary.smpOutcome.map {
                "image \($0.slot.version) in slot \($0.slot.slot), \(flags($0.slot))"
            }
        case .failed(let error)?: error.commandLineMessage
        case .notStarted?: "not started: the run was interrupted"
        case nil: nil
        }
    }

    /// The slot's flags as the library's SMP result says them: `active confirmed`, …, or `-` for none.
    private static func flags(_ slot: ImageSlot) -> String {
        let names = [
            (slot.isActive, "active"), (slot.isConfirmed, "confirmed"), (slot.isPending, "pending"),
            (slot.isPermanent, "permanent"),
        ].filter(\.0).map(\.1)
        return names.isEmpty ? "-" : names.joined(separator: " ")
    }

    /// The members of the `phase` or `progress` object `upload --json` prints for `report`.
    private static func members(_ report: UpdateProgress) -> [String: JSONValue] {
        guard case .object(let members) = UpdateEvent.progress(report).jsonValue else {
            preconditionFailure("an update event's JSON is an object")
        }
        return members
    }

    private static func summaryJSON(_ device: Device) -> JSONValue {
        .object([
            "device": .string(device.address), "adapter": .string(device.lane), "status": .string(status(device)),
            "exit_status": .int(Int(device.outcome?.exitStatus.rawValue ?? 0)),
            "message": .optional(message(device)) { .string($0) }, "bytes_uploaded": .int(device.bytesUploaded),
            "elapsed_ms": .optional(device.elapsed) { .int($0.milliseconds) },
        ])
    }
}

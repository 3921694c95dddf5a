import NRFLoaderKit
import Synchronization

/// Shows an update of several devices: one line per device redrawn in place on a terminal, lines prefixed with the
/// device otherwise, or JSON Lines on stdout whose every object carries `device`; then a summary (a table on stdout,
/// or one `summary` object).
///
/// The devices' tasks call it concurrently; every call takes the one lock.
final class FleetRenderer: Sendable {
    /// One device as the output names it.
    struct Device {
        /// Its address.
        var label: String
        /// The name it advertised (`--name REGEX --all`, `--targets-from`), if known.
        var name: String?
        /// Its adapter.
        var lane: String
    }

    /// What one device has done so far.
    struct DeviceState {
        var label: String
        var name: String?
        var lane: String
        var state = "waiting"
        var report: UpdateProgress?
        /// Bytes of the parts the device already confirmed before the current one.
        var confirmedEarlierParts = 0
        var outcome: FleetUpdate.Outcome?
        var status: ExitStatus?
        var message: String?
        var started: ContinuousClock.Instant?
        var elapsed: Duration?

        var bytesConfirmed: Int {
            if case .completed(let summary) = outcome { return summary.bytesConfirmed }
            return confirmedEarlierParts + (report?.bytesConfirmed ?? 0)
        }
    }

    private struct State {
        var devices: [DeviceState]
        var drawnLines = 0
        var lastDraw: ContinuousClock.Instant?
    }

    private let mode: UploadRenderer.Mode
    private let input: String
    private let parts: [UpdatePlan.Part]
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let state: Mutex<State>

    init(mode: UploadRenderer.Mode, input: String, parts: [UpdatePlan.Part], devices: [Device]) {
        self.mode = mode
        self.input = input
        self.parts = parts
        started = clock.now
        state = Mutex(State(devices: devices.map { DeviceState(label: $0.label, name: $0.name, lane: $0.lane) }))
    }

    /// Announces the run (human modes only: JSON consumers get one `begin` per device).
    func begin(parallel: Int) {
        guard mode == .terminal || mode == .lines else { return }
        let count = state.withLock { $0.devices.count }
        let sizes = parts.map { "\($0.type) \($0.size) bytes" }.joined(separator: ", ")
        Console.note("uploading \(input) to \(count) devices, \(parallel) at a time per adapter: \(sizes)")
        if mode == .terminal { state.withLock { draw(&$0, force: true) } }
    }

    /// Handles one device's event.
    func handle(_ event: FleetUpdate.Event) {
        let index = event.device
        state.withLock { state in
            let now = clock.now
            switch event.kind {
            case .started:
                state.devices[index].state = "connecting"
                state.devices[index].started = now
                if mode == .json { Console.json(begin(state.devices[index])) }
                if mode == .lines { line(state.devices[index], "started") }
                draw(&state, force: true)
            case .update(let update):
                handleUpdate(&state, index, update)
            case .finished(let outcome):
                var device = state.devices[index]
                device.outcome = outcome
                device.status = outcome.exitStatus
                device.elapsed = device.started.map { $0.duration(to: now) }
                switch outcome {
                case .completed:
                    device.state = "done"
                case .notStarted:
                    device.state = "not started"
                    device.message = "not started: the run was interrupted"
                case .failed(let error):
                    device.state = "failed"
                    device.message = error.commandLineMessage
                }
                state.devices[index] = device
                finished(device)
                draw(&state, force: true)
            }
        }
    }

    private func handleUpdate(_ state: inout State, _ index: Int, _ update: UpdateEvent) {
        switch update {
        case .begin, .link, .result:
            // The run's own begin line and each device's result object say these.
            break
        case .phase(let report):
            if let previous = state.devices[index].report, previous.part < report.part {
                state.devices[index].confirmedEarlierParts += previous.totalBytes
            }
            state.devices[index].report = report
            state.devices[index].state = report.phase.description
            let device = state.devices[index]
            switch mode {
            case .json:
                Console.json(
                    object(
                        "phase", device,
                        [
                            "phase": .string(report.phase.description), "part": .int(report.part),
                            "parts": .int(report.parts),
                        ]))
                Console.json(progress(device, report))
            case .lines:
                line(device, "part \(report.part)/\(report.parts): \(report.phase) (\(report.totalBytes) bytes)")
            case .terminal:
                draw(&state, force: true)
            case .quiet:
                break
            }
        case .progress(let report):
            state.devices[index].report = report
            switch mode {
            case .json:
                // Throttled per run, not per device: at most 10 progress objects a second in all.
                let now = clock.now
                if let last = state.lastDraw, last.duration(to: now) < UploadRenderer.redrawInterval { return }
                state.lastDraw = now
                Console.json(progress(state.devices[index], report))
            case .terminal:
                draw(&state, force: false)
            case .lines, .quiet:
                break
            }
        case .log(let text):
            if mode == .json { Console.json(object("log", state.devices[index], ["message": .string(text)])) }
        }
    }

    /// The end of one device, as its own `result` or `error` object, or a line.
    private func finished(_ device: DeviceState) {
        switch mode {
        case .json:
            switch device.outcome {
            case .completed(let summary):
                // A device's result is a stream event of the run (the run's own verdict is the summary), so it is
                // printed at once rather than held as the command's result.
                Console.result(
                    object(
                        "result", device,
                        [
                            "parts": .array(summary.parts.map(Self.json)),
                            "elapsed_ms": .optional(device.elapsed) { .int($0.milliseconds) },
                        ]
                    ).text)
            default:
                Console.json(
                    object(
                        "error", device,
                        [
                            "message": .string(device.message ?? device.state),
                            "exit_status": .int(Int(device.status?.rawValue ?? 0)),
                        ]))
            }
        case .lines:
            line(device, Self.describe(device))
        case .terminal, .quiet:
            break
        }
    }

    /// The closing report: a table on stdout (and one line on stderr), or the `summary` object.
    func summary(exitStatus: ExitStatus) {
        let devices = state.withLock { state in
            draw(&state, force: true)
            return state.devices
        }
        let failed = devices.filter { $0.outcome?.exitStatus != .success }.count
        if mode == .json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("summary"),
                    "devices": .array(devices.map(Self.summaryJSON)),
                    "completed": .int(devices.count - failed), "failed": .int(failed),
                    "exit_status": .int(Int(exitStatus.rawValue)),
                    "elapsed_ms": .int(started.duration(to: clock.now).milliseconds),
                ]))
            return
        }
        let rows = devices.map { device in
            [
                device.label, device.name.map(\.escapedForTerminal) ?? "-", device.lane, Self.status(device),
                String(device.status?.rawValue ?? 0), String(device.bytesConfirmed),
                device.message.map(\.escapedForTerminal) ?? "-",
            ]
        }
        Console.result(
            table(
                [["DEVICE", "NAME", "ADAPTER", "STATUS", "EXIT", "CONFIRMED", "MESSAGE"]] + rows, rightAligned: [4, 5]))
        if mode != .quiet {
            let seconds = formatSeconds(started.duration(to: clock.now))
            Console.note(
                "\(devices.count - failed) of \(devices.count) devices updated in \(seconds)"
                    + (failed > 0 ? ", \(failed) failed (exit \(exitStatus.rawValue))" : ""))
        }
    }

    // MARK: Terminal

    /// Redraws the block of device lines in place (throttled to 10 Hz unless forced).
    private func draw(_ state: inout State, force: Bool) {
        guard mode == .terminal else { return }
        let now = clock.now
        if !force, let last = state.lastDraw, last.duration(to: now) < UploadRenderer.redrawInterval { return }
        state.lastDraw = now
        var text = state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)A" : ""
        let width = state.devices.map(\.label.count).max() ?? 0
        for device in state.devices {
            text += "\r" + ANSI.clearLine + Self.progressLine(device, labelWidth: width) + "\n"
        }
        state.drawnLines = state.devices.count
        Console.noteInline(text)
    }

    private static func progressLine(_ device: DeviceState, labelWidth: Int) -> String {
        var line = device.label + String(repeating: " ", count: max(0, labelWidth - device.label.count))
        if let name = device.name { line += "  " + name.escapedForTerminal }
        if let report = device.report {
            let percent = report.totalBytes > 0 ? report.bytesConfirmed * 100 / report.totalBytes : 0
            line += "  part \(report.part)/\(report.parts)  \(String(percent).leftPadded(to: 3))%"
            if let rate = report.bytesPerSecond, device.outcome == nil { line += "  \(formatRate(rate))" }
        }
        line += "  " + (device.outcome == nil ? device.state : describe(device))
        return line
    }

    // MARK: Lines and JSON

    private func line(_ device: DeviceState, _ text: String) {
        Console.note("\(device.label): \(text)")
    }

    private static func describe(_ device: DeviceState) -> String {
        switch device.outcome {
        case .completed(let summary):
            let parts = summary.parts.map { part in
                "\(part.name) \(part.bytesConfirmed) bytes"
                    + (part.crc32.map { ", CRC-32 \(hex($0, width: 8))" } ?? " (legacy DFU reports no CRC)")
            }
            return "confirmed by the device: " + parts.joined(separator: "; ")
        case .notStarted:
            return "not started (interrupted)"
        case .failed, nil:
            return "failed (exit \(device.status?.rawValue ?? 0)): \((device.message ?? "?").escapedForTerminal)"
        }
    }

    private static func status(_ device: DeviceState) -> String {
        switch device.outcome {
        case .completed: "completed"
        case .notStarted, nil: "not_started"
        case .failed: "failed"
        }
    }

    private func begin(_ device: DeviceState) -> JSONValue {
        object(
            "begin", device,
            [
                "input": .string(input),
                "parts": .array(
                    parts.map {
                        .object([
                            "type": .string($0.type), "size": .int($0.size),
                            "init_packet_size": .int($0.initPacketSize),
                        ])
                    }),
            ])
    }

    private func progress(_ device: DeviceState, _ report: UpdateProgress) -> JSONValue {
        guard case .object(let members) = UpdateEvent.progress(report).jsonValue else {
            preconditionFailure("an update event's JSON is an object")
        }
        return object("progress", device, members)
    }

    /// An event object about one device: `schema`, `event`, `device`, `name` and `adapter` plus `members`.
    private func object(_ event: String, _ device: DeviceState, _ members: [String: JSONValue]) -> JSONValue {
        var members = members
        members["schema"] = .int(JSONValue.schemaVersion)
        members["event"] = .string(event)
        members["device"] = .string(device.label)
        members["name"] = .optional(device.name) { .string($0) }
        members["adapter"] = .string(device.lane)
        return .object(members)
    }

    private static func json(_ part: UpdateSummary.Part) -> JSONValue {
        .object([
            "type": .string(part.name),
            "protocol": .optional(part.dfuProtocol) { .string($0.rawValue) },
            "bytes_confirmed": .int(part.bytesConfirmed),
            "crc32": .optional(part.crc32) { .string(hex($0, width: 8)) },
        ])
    }

    private static func summaryJSON(_ device: DeviceState) -> JSONValue {
        var parts: JSONValue = .null
        if case .completed(let summary) = device.outcome {
            parts = .array(summary.parts.map(json))
        }
        return .object([
            "device": .string(device.label), "name": .optional(device.name) { .string($0) },
            "adapter": .string(device.lane), "status": .string(status(device)),
            "exit_status": .int(Int(device.status?.rawValue ?? 0)),
            "message": .optional(device.message) { .string($0) },
            "bytes_confirmed": .int(device.bytesConfirmed), "parts": parts,
            "elapsed_ms": .optional(device.elapsed) { .int($0.milliseconds) },
        ])
    }
}

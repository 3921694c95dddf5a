import DFUController
import DFUTargetAdapter
import FirmwareInput
import HexConverter

/// Shows an update as it runs: redrawn progress on a terminal's stderr, one line per phase otherwise, or JSON
/// Lines on stdout with `--json` (style §41–42).
final class UploadRenderer {
    enum Mode {
        /// Progress redrawn in place on stderr, at most 10 times a second.
        case terminal
        /// One line per phase on stderr.
        case lines
        /// JSON Lines on stdout.
        case json
        /// Nothing but errors.
        case quiet
    }

    private let mode: Mode
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant?
    private var lastReport: DFUProgressReport?
    private var hasOpenLine = false

    /// The shortest time between two redraws or JSON progress objects: 10 per second at most.
    static let redrawInterval = Duration.milliseconds(100)

    init(mode: Mode) {
        self.mode = mode
        started = clock.now
    }

    private var elapsedMilliseconds: Int { started.duration(to: clock.now).milliseconds }

    func begin(_ input: FirmwareInput, target: String) {
        let parts = input.firmware.parts
        switch mode {
        case .json:
            Console.json(
                event(
                    "begin",
                    [
                        "input": .string(input.name), "target": .string(target),
                        "parts": .array(
                            parts.map {
                                .object([
                                    "type": .string($0.imageType.description), "size": .int($0.image.count),
                                    "init_packet_size": .int($0.initPacket.count),
                                ])
                            }),
                    ]))
        case .terminal, .lines:
            let sizes = parts.map { "\($0.imageType) \($0.image.count) bytes" }.joined(separator: ", ")
            Console.note("uploading \(input.name.escapedForTerminal) to \(target.escapedForTerminal): \(sizes)")
        case .quiet:
            break
        }
    }

    func handle(_ sessionEvent: DFUSessionEvent) {
        switch sessionEvent {
        case .phase(let report):
            lastReport = report
            switch mode {
            case .json:
                Console.json(
                    event(
                        "phase",
                        [
                            "phase": .string(report.phase.description), "part": .int(report.part),
                            "parts": .int(report.partCount),
                        ]))
                progress(report, force: true)
            case .terminal:
                closeLine()
                draw(report)
            case .lines:
                Console.note("part \(report.part)/\(report.partCount): \(report.phase) (\(report.totalBytes) bytes)")
            case .quiet:
                break
            }
        case .progress(let report):
            lastReport = report
            progress(report, force: false)
        case .log(let line):
            if mode == .json { Console.json(event("log", ["message": .string(line)])) }
        }
    }

    private func progress(_ report: DFUProgressReport, force: Bool) {
        let now = clock.now
        if !force, let lastDraw, lastDraw.duration(to: now) < Self.redrawInterval { return }
        lastDraw = now
        switch mode {
        case .json:
            Console.json(
                event("progress", report.jsonMembers))
        case .terminal:
            draw(report)
        case .lines, .quiet:
            break
        }
    }

    private func draw(_ report: DFUProgressReport) {
        let percent = report.totalBytes > 0 ? report.bytesConfirmed * 100 / report.totalBytes : 0
        var line =
            "part \(report.part)/\(report.partCount)  \(report.phase)  \(String(percent).leftPadded(to: 3))%  "
            + "\(report.bytesConfirmed)/\(report.totalBytes) B"
        if let rate = report.bytesPerSecond { line += "  \(formatRate(rate))" }
        if let eta = report.estimatedRemaining { line += "  ETA \(formatSeconds(eta))" }
        Console.noteInline("\r" + ANSI.clearLine + line)
        hasOpenLine = true
    }

    private func closeLine() {
        guard hasOpenLine else { return }
        if let lastReport { draw(lastReport) }
        Console.note("")
        hasOpenLine = false
    }

    /// Reports what the device confirmed.
    func finish(_ summary: DFUSummary) {
        closeLine()
        let parts = summary.parts.map { part -> JSONValue in
            .object([
                "type": .string(part.imageType.description),
                "protocol": .string(part.dfuProtocol == .secure ? "secure" : "legacy"),
                "bytes_confirmed": .int(part.bytesConfirmed),
                "crc32": .optional(part.crc32) { .string(hex($0, width: 8)) },
                "confirmation": Self.confirmation(part.evidence),
            ])
        }
        switch mode {
        case .json:
            Console.json(event("result", ["parts": .array(parts), "elapsed_ms": .int(elapsedMilliseconds)]))
        case .terminal, .lines, .quiet:
            for (index, part) in summary.parts.enumerated() {
                let crc = part.crc32.map { ", CRC-32 \(hex($0, width: 8))" } ?? " (legacy DFU reports no CRC)"
                Console.result(
                    "part \(index + 1)/\(summary.parts.count): \(part.imageType) confirmed by the device: "
                        + "\(part.bytesConfirmed) bytes\(crc)")
            }
        }
    }

    /// How the device confirmed a part: the request whose answer did, and what it reported.
    private static func confirmation(_ evidence: ConfirmationEvidence) -> JSONValue {
        switch evidence {
        case .reportedChecksum(let opcode, let crc32):
            .object([
                "method": .string(opcode == .selectObject ? "select_object" : "calculate_checksum"),
                "crc32": .string(hex(crc32, width: 8)), "response": .null,
            ])
        case .validateResponse(let bytes):
            .object([
                "method": .string("validate_firmware"), "crc32": .null,
                "response": .string(bytes.map { String(hex($0, width: 2).dropFirst(2)) }.joined(separator: " ")),
            ])
        }
    }

    /// Ends the progress display before a failure.
    ///
    /// The error line and, with `--json`, the final `error` object are printed once by the command's caller
    /// (``Console/reportError(_:status:json:)``), for every failure alike.
    func fail(_ message: String, status: ExitStatus) {
        closeLine()
    }

    private func event(_ name: String, _ members: [String: JSONValue]) -> JSONValue {
        var members = members
        members["schema"] = .int(JSONValue.schemaVersion)
        members["event"] = .string(name)
        return .object(members)
    }
}

/// `12.3 kB/s`.
func formatRate(_ bytesPerSecond: Double) -> String {
    let tenths = Int((bytesPerSecond / 100).rounded())
    return "\(tenths / 10).\(tenths % 10) kB/s"
}

/// `1.4 s`.
func formatSeconds(_ duration: Duration) -> String {
    let tenths = duration.milliseconds / 100
    return "\(tenths / 10).\(tenths % 10) s"
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The escape sequences the CLI uses (style §43): only on a terminal, never in JSON.
enum ANSI {
    /// Erase to the end of the line.
    static let clearLine = "\u{1B}[K"
}

extension DFUProgressReport {
    /// The members of a `progress` event (one upload's, or one device's in a fleet).
    var jsonMembers: [String: JSONValue] {
        [
            "part": .int(part), "parts": .int(partCount), "phase": .string(phase.description),
            "bytes_sent": .int(bytesSent), "bytes_confirmed": .int(bytesConfirmed), "total_bytes": .int(totalBytes),
            "bytes_per_second": .optional(bytesPerSecond) { .int(Int($0.rounded())) },
            "eta_ms": .optional(estimatedRemaining) { .int($0.milliseconds) },
        ]
    }
}

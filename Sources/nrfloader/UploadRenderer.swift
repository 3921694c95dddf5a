import NRFLoaderKit

/// Shows an update's events as they come: redrawn progress on a terminal's stderr, one line per phase otherwise, or
/// the events' JSON Lines on stdout with `--json` (style §41–42).
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
    /// With `--json`: the lines, as every program that relays an update prints them.
    private var jsonLines = UpdateJSONLines()
    private var lastDraw: ContinuousClock.Instant?
    private var lastProgress: UpdateProgress?
    private var hasOpenLine = false

    /// The shortest time between two redraws: 10 per second at most, as for JSON progress objects.
    static let redrawInterval = UpdateJSONLines.progressInterval

    init(mode: Mode) {
        self.mode = mode
    }

    func handle(_ event: UpdateEvent) {
        if mode == .json {
            // The lines every program that relays an update prints (NRFLoaderKit's UpdateJSONLines).
            for object in jsonLines.objects(for: event, at: clock.now) { Console.json(object) }
            return
        }
        switch event {
        case .begin(let plan):
            if mode != .quiet { Console.note(plan.summary.escapedForTerminal) }
        case .phase(let progress):
            lastProgress = progress
            switch mode {
            case .terminal:
                closeLine()
                draw(progress)
            case .lines:
                Console.note(
                    "part \(progress.part)/\(progress.parts): \(progress.phase) (\(progress.totalBytes) bytes)")
            case .json, .quiet:
                break
            }
        case .progress(let progress):
            lastProgress = progress
            if progress.isMilestone {
                // Legacy serial DFU reports acknowledged bytes each 10 %: every one is shown.
                if mode == .terminal || mode == .lines {
                    Console.note(
                        "part \(progress.part)/\(progress.parts): \(progress.bytesSent)/\(progress.totalBytes) bytes "
                            + "acknowledged")
                }
                return
            }
            if mode == .terminal { redraw(progress) }
        case .log:
            break
        case .link(let line):
            if mode == .lines || mode == .terminal { Console.note(line) }
        case .result(let summary):
            closeLine()
            // Versions and flags in an SMP result come from the device: escaped before they reach a terminal.
            Console.result(summary.parts.map(\.summary.escapedForTerminal).joined(separator: "\n"))
        }
    }

    /// Redraws the progress line on a terminal, at most 10 times a second.
    private func redraw(_ progress: UpdateProgress) {
        let now = clock.now
        if let lastDraw, lastDraw.duration(to: now) < Self.redrawInterval { return }
        lastDraw = now
        draw(progress)
    }

    private func draw(_ progress: UpdateProgress) {
        let percent = progress.totalBytes > 0 ? progress.bytesConfirmed * 100 / progress.totalBytes : 0
        var line =
            "part \(progress.part)/\(progress.parts)  \(progress.phase)  \(String(percent).leftPadded(to: 3))%  "
            + "\(progress.bytesConfirmed)/\(progress.totalBytes) B"
        if let rate = progress.bytesPerSecond { line += "  \(formatRate(rate))" }
        if let eta = progress.estimatedRemaining { line += "  ETA \(formatSeconds(eta))" }
        Console.noteInline("\r" + ANSI.clearLine + line)
        hasOpenLine = true
    }

    private func closeLine() {
        guard hasOpenLine else { return }
        if let lastProgress { draw(lastProgress) }
        Console.note("")
        hasOpenLine = false
    }

    /// Ends the progress display before a failure.
    ///
    /// The error line and, with `--json`, the final `error` object are printed once by the command's caller
    /// (``Console/reportError(_:status:json:)``), for every failure alike.
    func fail() {
        closeLine()
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

/// The escape sequences the CLI uses (style §43): only on a terminal, never in JSON.
enum ANSI {
    /// Erase to the end of the line.
    static let clearLine = "\u{1B}[K"
}

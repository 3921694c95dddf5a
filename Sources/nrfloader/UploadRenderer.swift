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
    private var lastDraw: ContinuousClock.Instant?
    private var lastProgress: UpdateProgress?
    private var hasOpenLine = false

    /// The shortest time between two redraws or JSON progress objects: 10 per second at most.
    static let redrawInterval = Duration.milliseconds(100)

    init(mode: Mode) {
        self.mode = mode
    }

    func handle(_ event: UpdateEvent) {
        switch event {
        case .begin(let plan):
            switch mode {
            case .json: Console.json(event.jsonValue)
            case .terminal, .lines: Console.note(plan.summary.escapedForTerminal)
            case .quiet: break
            }
        case .phase(let progress):
            lastProgress = progress
            switch mode {
            case .json:
                Console.json(event.jsonValue)
                self.progress(progress, force: true)
            case .terminal:
                closeLine()
                draw(progress)
            case .lines:
                Console.note(
                    "part \(progress.part)/\(progress.parts): \(progress.phase) (\(progress.totalBytes) bytes)")
            case .quiet:
                break
            }
        case .progress(let progress):
            lastProgress = progress
            if progress.isMilestone {
                // Legacy serial DFU reports acknowledged bytes each 10 %: every one is shown.
                switch mode {
                case .json: Console.json(event.jsonValue)
                case .terminal, .lines:
                    Console.note(
                        "part \(progress.part)/\(progress.parts): \(progress.bytesSent)/\(progress.totalBytes) bytes "
                            + "acknowledged")
                case .quiet: break
                }
                return
            }
            self.progress(progress, force: false)
        case .log:
            if mode == .json { Console.json(event.jsonValue) }
        case .link(let line):
            if mode == .json { Console.json(event.jsonValue) }
            if mode == .lines || mode == .terminal { Console.note(line) }
        case .result(let summary):
            closeLine()
            switch mode {
            case .json: Console.json(event.jsonValue)
            case .terminal, .lines, .quiet:
                // Versions and flags in an SMP result come from the device: escaped before they reach a terminal.
                Console.result(summary.parts.map(\.summary.escapedForTerminal).joined(separator: "\n"))
            }
        }
    }

    private func progress(_ progress: UpdateProgress, force: Bool) {
        let now = clock.now
        if !force, let lastDraw, lastDraw.duration(to: now) < Self.redrawInterval { return }
        lastDraw = now
        switch mode {
        case .json: Console.json(UpdateEvent.progress(progress).jsonValue)
        case .terminal: draw(progress)
        case .lines, .quiet: break
        }
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

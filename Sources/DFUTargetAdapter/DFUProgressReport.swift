package import DFUController

/// What the adapter publishes while an update runs: the library's progress API, which the CLI renders.
package enum DFUSessionEvent: Sendable, Equatable {
    /// The update entered a new phase (or a new part).
    case phase(DFUProgressReport)
    /// Bytes moved.
    case progress(DFUProgressReport)
    /// A line of detail from the controller (opcodes, resumes, retries).
    case log(String)
}

/// Progress of an update, with rates computed from the session clock.
package struct DFUProgressReport: Sendable, Equatable {
    /// The phase the controller reported.
    package var phase: DFUPhase
    /// 1-based number of the part being sent.
    package var part: Int
    /// The number of parts.
    package var partCount: Int
    /// Firmware bytes of this part handed to the link (payload bytes, not counting ATT headers).
    package var bytesSent: Int
    /// Firmware bytes of this part the device confirmed with a matching CRC.
    package var bytesConfirmed: Int
    /// The size of this part's firmware image.
    package var totalBytes: Int
    /// Time since the session started.
    package var elapsed: Duration
    /// Confirmed bytes per second over this part so far, `nil` until there is something to divide.
    package var bytesPerSecond: Double?
    /// The time left for this part at the current rate, `nil` while unknown.
    package var estimatedRemaining: Duration?

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - progress: The controller's progress values.
    ///   - elapsed: Time since the session started.
    ///   - bytesPerSecond: The measured rate.
    ///   - estimatedRemaining: The estimated time left for the part.
    package init(
        _ progress: DFUProgress,
        elapsed: Duration,
        bytesPerSecond: Double?,
        estimatedRemaining: Duration?
    ) {
        phase = progress.phase
        part = progress.part
        partCount = progress.partCount
        bytesSent = progress.bytesSent
        bytesConfirmed = progress.bytesConfirmed
        totalBytes = progress.totalBytes
        self.elapsed = elapsed
        self.bytesPerSecond = bytesPerSecond
        self.estimatedRemaining = estimatedRemaining
    }
}

/// Turns the controller's progress actions into reports with a rate and an estimate.
///
/// The rate is measured per part from the first progress report of its data phase, so connection set-up and the
/// init packet do not dilute it.
struct RateMeter {
    private var partStart: (part: Int, time: Duration, bytes: Int)?
    private var lastPhase: (phase: DFUPhase, part: Int)?

    mutating func report(_ progress: DFUProgress, at now: Duration) -> DFUSessionEvent {
        let isNewPhase = lastPhase.map { $0.phase != progress.phase || $0.part != progress.part } ?? true
        lastPhase = (progress.phase, progress.part)
        if progress.phase == .sendingFirmware, partStart?.part != progress.part {
            partStart = (progress.part, now, progress.bytesConfirmed)
        }
        var rate: Double?
        var remaining: Duration?
        if let start = partStart, start.part == progress.part, now > start.time {
            let seconds =
                Double((now - start.time).components.seconds)
                + Double((now - start.time).components.attoseconds) / 1e18
            let moved = progress.bytesConfirmed - start.bytes
            if moved > 0 {
                let bytesPerSecond = Double(moved) / seconds
                rate = bytesPerSecond
                let left = Double(max(0, progress.totalBytes - progress.bytesConfirmed)) / bytesPerSecond
                remaining = .milliseconds(Int64((left * 1000).rounded()))
            }
        }
        let report = DFUProgressReport(progress, elapsed: now, bytesPerSecond: rate, estimatedRemaining: remaining)
        return isNewPhase ? .phase(report) : .progress(report)
    }
}

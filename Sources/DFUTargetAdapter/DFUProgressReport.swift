package import DFUController
package import DeviceLink

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
    /// Confirmed bytes per second over about the last second, `nil` while unknown.
    package var currentBytesPerSecond: Double?
    /// The time left for this part at the average rate, `nil` while unknown.
    package var estimatedRemaining: Duration?

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - progress: The controller's progress values.
    ///   - elapsed: Time since the session started.
    ///   - reading: The measured speeds and the estimated time left for the part.
    package init(_ progress: DFUProgress, elapsed: Duration, reading: RateMeter.Reading) {
        phase = progress.phase
        part = progress.part
        partCount = progress.partCount
        bytesSent = progress.bytesSent
        bytesConfirmed = progress.bytesConfirmed
        totalBytes = progress.totalBytes
        self.elapsed = elapsed
        bytesPerSecond = reading.averageBytesPerSecond
        currentBytesPerSecond = reading.currentBytesPerSecond
        estimatedRemaining = reading.estimatedRemaining
    }
}

/// Turns the controller's progress actions into reports with the speeds and an estimate, and tells a new phase (or
/// part) from more progress in the same one.
struct ProgressReporter {
    private var meter = RateMeter()
    private var lastPhase: (phase: DFUPhase, part: Int)?

    mutating func report(_ progress: DFUProgress, at now: Duration) -> DFUSessionEvent {
        let isNewPhase = lastPhase.map { $0.phase != progress.phase || $0.part != progress.part } ?? true
        lastPhase = (progress.phase, progress.part)
        let reading = meter.measure(
            part: progress.part, isTransferring: progress.phase == .sendingFirmware,
            bytesConfirmed: progress.bytesConfirmed, totalBytes: progress.totalBytes, at: now)
        let report = DFUProgressReport(progress, elapsed: now, reading: reading)
        return isNewPhase ? .phase(report) : .progress(report)
    }
}

import DFUController
package import DFUTargetAdapter
package import SMP
package import SMPTargetAdapter

/// One SMP (MCUmgr) update over any SMP transport: every image of the input in one session, with the SMP machine's
/// progress turned into the same ``UpdateEvent``s as a DFU's, one part per image.
package enum SMPSession {
    /// Runs the SMP machine for `input` over `transport`.
    ///
    /// - Parameters:
    ///   - input: The checked image or package.
    ///   - targetName: The target as the begin event names it.
    ///   - transport: The link.
    ///   - configuration: The policy.
    ///   - onEvent: Every event.
    /// - Returns: What the device reported.
    /// - Throws: ``UpdateError`` wrapping an ``SMPUploadFailure`` when the update did not reach the asked-for state.
    package static func run<Transport: SMPTransport>(
        _ input: SMPUpdateInput, named targetName: String, over transport: Transport,
        configuration: SMPUploadConfiguration, onEvent: (UpdateEvent) -> Void
    ) async throws(UpdateError) -> UpdateSummary {
        let started = ContinuousClock.now
        let uploader = SMPUploader(
            images: try UpdateError.wrapping { try input.uploads() }, configuration: configuration)
        onEvent(.begin(SMPUploadSummary.plan(input, target: targetName)))
        var meter = SMPRateMeter()
        let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
            switch event {
            case .progress(let progress, let elapsed):
                switch meter.report(progress, at: elapsed) {
                case .phase(let report): onEvent(.phase(UpdateProgress(report)))
                case .progress(let report): onEvent(.progress(UpdateProgress(report)))
                case .log(let line): onEvent(.log(line))
                }
            case .log(let line): onEvent(.log(line))
            }
        }
        switch outcome {
        case .completed(let result):
            let summary = SMPUploadSummary.summary(result, input: input, elapsed: started.duration(to: .now))
            onEvent(.result(summary))
            return summary
        case .failed(let error, let reached):
            throw UpdateError(SMPUploadFailure(error: error, deviceWasReached: reached))
        }
    }
}

/// Turns SMP progress into the reports the DFU events carry, with a rate over the upload phase.
package struct SMPRateMeter {
    private var start: (time: Duration, bytes: Int)?
    private var last: SMPPhase?
    private var lastPart: Int?

    package init() {}

    package mutating func report(_ progress: SMPProgress, at elapsed: Duration) -> DFUSessionEvent {
        let phase = Self.phase(progress.phase)
        // A new image is a new part: its own phase line, and its own rate.
        let isNewPart = lastPart.map { $0 != progress.part } ?? false
        if isNewPart { start = nil }
        let isNew = isNewPart || (last.map { Self.phase($0) != phase } ?? true)
        last = progress.phase
        lastPart = progress.part
        if progress.phase == .uploading, start == nil { start = (elapsed, progress.bytesConfirmed) }
        var rate: Double?
        var remaining: Duration?
        if let start, elapsed > start.time, progress.bytesConfirmed > start.bytes {
            let seconds =
                Double((elapsed - start.time).components.attoseconds) / 1e18
                + Double((elapsed - start.time).components.seconds)
            let bytesPerSecond = Double(progress.bytesConfirmed - start.bytes) / seconds
            rate = bytesPerSecond
            let left = Double(max(0, progress.totalBytes - progress.bytesConfirmed)) / bytesPerSecond
            remaining = .milliseconds(Int64((left * 1000).rounded()))
        }
        let report = DFUProgressReport(
            DFUProgress(
                phase: phase, part: progress.part, partCount: progress.parts, bytesSent: progress.bytesSent,
                bytesConfirmed: progress.bytesConfirmed, totalBytes: progress.totalBytes),
            elapsed: elapsed, bytesPerSecond: rate, estimatedRemaining: remaining)
        return isNew ? .phase(report) : .progress(report)
    }

    private static func phase(_ phase: SMPPhase) -> DFUPhase {
        switch phase {
        case .connecting, .inspecting: .connecting
        case .uploading: .sendingFirmware
        case .settingState, .resetting, .verifying: .validating
        }
    }
}

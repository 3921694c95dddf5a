import DFUController
import DFUTargetAdapter
import DeviceLink
package import SMP
package import SMPTargetAdapter

/// One SMP (MCUmgr) update over any SMP transport: every image of the input in one session, with the SMP machine's
/// progress turned into the same ``UpdateEvent``s as a DFU's, one part per image.
package enum SMPSession {
    /// Runs the SMP machine for `images` over `transport`.
    ///
    /// - Parameters:
    ///   - images: The checked images, in the order they are sent.
    ///   - package: The name of the package they come from, `nil` for a lone image.
    ///   - targetName: The target as the begin event names it.
    ///   - transport: The link.
    ///   - configuration: The policy.
    ///   - onEvent: Every event.
    /// - Returns: What the device reported.
    /// - Throws: ``UpdateError`` wrapping an ``UpdateFailure`` when the update did not reach the asked-for state.
    package static func run<Transport: SMPTransport>(
        _ images: [SMPImageUpload], package: String?, named targetName: String, over transport: Transport,
        configuration: SMPUploadConfiguration, onEvent: (UpdateEvent) -> Void
    ) async throws(UpdateError) -> UpdateSummary {
        let started = ContinuousClock.now
        let uploader = SMPUploader(images: images, configuration: configuration)
        onEvent(.begin(SMPUploadSummary.plan(images, package: package, target: targetName)))
        var reporter = SMPProgressReporter()
        let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
            switch event {
            case .progress(let progress, let elapsed): onEvent(reporter.report(progress, at: elapsed))
            case .log(let line): onEvent(.log(line))
            }
        }
        switch outcome {
        case .completed(let result):
            let summary = SMPUploadSummary.summary(
                result, images: images, package: package, elapsed: started.duration(to: .now))
            onEvent(.result(summary))
            return summary
        case .failed(let error, let reached):
            throw UpdateError(UpdateFailure(.smpUpload(error), deviceWasReached: reached))
        }
    }
}

/// Turns SMP progress into update events with the speeds: a phase event when the part (image) or the phase's word
/// changes, a progress event otherwise.
package struct SMPProgressReporter {
    private var meter = RateMeter()
    private var last: (phase: UpdatePhase, part: Int)?

    package init() {}

    package mutating func report(_ progress: SMPProgress, at elapsed: Duration) -> UpdateEvent {
        let phase = UpdatePhase(progress.phase)
        let isNew = last.map { $0.part != progress.part || $0.phase.description != phase.description } ?? true
        last = (phase, progress.part)
        let reading = meter.measure(
            part: progress.part, isTransferring: phase.isTransferring, bytesConfirmed: progress.bytesConfirmed,
            totalBytes: progress.totalBytes, at: elapsed)
        let update = UpdateProgress(progress, reading: reading)
        return isNew ? .phase(update) : .progress(update)
    }
}

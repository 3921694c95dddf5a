package import DeviceLink
package import SMP

/// The I/O shell around `SMPUploader`.
///
/// It performs the machine's actions on an `SMPTransport`, feeds back what happened, and keeps its timers on the
/// transport's clock. It makes no protocol decision (style §23).
package struct SMPTargetAdapter<Transport: SMPTransport>: Sendable {
    /// How an update ended.
    package enum Outcome: Sendable, Equatable {
        /// The device's state shows the image as asked.
        case completed(SMPUploadResult)
        /// The machine gave up; `deviceWasReached` says whether any connection succeeded.
        case failed(SMPUploadError, deviceWasReached: Bool)
    }

    /// What the adapter publishes while the update runs.
    package enum Event: Sendable, Equatable {
        /// Progress, with the session time it was reported at.
        case progress(SMPProgress, elapsed: Duration)
        /// A line of detail.
        case log(String)
    }

    private let transport: Transport
    private let uploader: SMPUploader

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link.
    ///   - uploader: The machine, not started.
    package init(transport: Transport, uploader: SMPUploader) {
        self.transport = transport
        self.uploader = uploader
    }

    /// Runs the update to its end.
    ///
    /// - Parameter onEvent: Receives progress and log lines.
    /// - Returns: The outcome.
    package func run(onEvent: (Event) -> Void) async -> Outcome {
        let driver = MachineDriver(link: SMPDriverLink(transport: transport), connectionFallback: .seconds(30))
        let outcome = await driver.run(
            uploader,
            report: { action, elapsed in
                switch action {
                case .progress(let progress): onEvent(.progress(progress, elapsed: elapsed))
                case .log(let line): onEvent(.log(line))
                default: preconditionFailure("\(action) is not a report")
                }
            },
            log: { onEvent(.log($0)) })
        switch outcome {
        case .completed(let result): return .completed(result)
        case .failed(let error, let reached): return .failed(error, deviceWasReached: reached)
        }
    }
}

extension SMPUploader: SMPDrivenMachine {
    package static var connectionTimer: SMPTimer { .connection }
    package static var cancelled: SMPUploadError { .cancelled }

    package static func step(_ action: SMPAction) -> DriverStep<
        SMPLinkOperation, SMPTimer, SMPUploadResult, SMPUploadError
    > {
        switch action {
        case .connect: .perform(.connect)
        case .send(let frame): .perform(.send(frame))
        case .disconnect: .disconnect
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .progress, .log: .report
        case .finish(let result): .finish(result)
        case .fail(let error): .fail(error)
        }
    }
}

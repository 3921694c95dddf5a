package import DFUController
import DeviceLink

/// The I/O shell around `DFUController`: performs its actions on a `GATTTransport`, feeds back what happened,
/// and keeps its timers on the transport's clock.
///
/// It makes no protocol decision (style §23): every `if` about the update lives in the controller. One task runs
/// `run(onEvent:)`; cancelling that task (Ctrl-C in the CLI) is turned into the controller's `cancel(at:)`, whose
/// Abort or Reset still goes out before `run(onEvent:)` returns, so the device stays recoverable.
package struct DFUTargetAdapter<Transport: GATTTransport>: Sendable {
    /// How an update ended.
    package enum Outcome: Sendable, Equatable {
        /// Every part was confirmed by the device.
        case completed(DFUSummary)
        /// The controller gave up. A transport failure is inside the error, typed (`LinkError.Kind`);
        /// `deviceWasReached` says whether any connection to the device succeeded (the controller's record), so a
        /// caller can tell a device that vanished from one never found without looking at progress events.
        case failed(DFUError, deviceWasReached: Bool)
    }

    private let transport: Transport
    private let controllerTemplate: DFUController

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link to the device.
    ///   - controller: The controller, not yet started.
    package init(transport: Transport, controller: DFUController) {
        self.transport = transport
        self.controllerTemplate = controller
    }

    /// Runs the update to its end on the one `MachineDriver`.
    ///
    /// - Parameter onEvent: Receives phases, progress and log lines as they happen.
    /// - Returns: What the device confirmed, or why the update failed.
    package func run(onEvent: (DFUSessionEvent) -> Void) async -> Outcome {
        var reporter = ProgressReporter()
        let driver = MachineDriver(link: GATTDriverLink(transport: transport), connectionFallback: .seconds(30))
        let outcome = await driver.run(
            controllerTemplate,
            report: { action, now in
                switch action {
                case .progress(let progress): onEvent(reporter.report(progress, at: now))
                case .log(let line): onEvent(.log(line))
                default: preconditionFailure("\(action) is not a report")
                }
            },
            log: { onEvent(.log($0)) })
        switch outcome {
        case .completed(let summary): return .completed(summary)
        case .failed(let error, let reached): return .failed(error, deviceWasReached: reached)
        }
    }
}

extension TransportFailure {
    /// The controller's view of a transport error: the operation, the error's kind, and its text.
    ///
    /// - Parameters:
    ///   - operation: What the adapter was doing.
    ///   - error: The transport's error.
    init(operation: TransportOperation, _ error: LinkError) {
        self.init(operation: operation, kind: error.kind, cause: error.cause)
    }
}

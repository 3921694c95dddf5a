package import DeviceLink
package import SMP

/// The I/O shell around `SMPFileTransfer`: `fs upload` or `fs download` over any `SMPTransport`, with progress.
///
/// It performs the machine's actions, feeds back what happened, and keeps the machine's timers on the transport's
/// clock. It makes no protocol decision (style §23).
package struct SMPFileTransferAdapter<Transport: SMPTransport>: Sendable {
    /// How the transfer ended.
    package enum Outcome: Sendable, Equatable {
        /// The file is whole.
        case completed(SMPFileTransferResult)
        /// The machine gave up; `deviceWasReached` says whether any connection succeeded.
        case failed(SMPExchangeError, deviceWasReached: Bool)
    }

    private let transport: Transport
    private let transfer: SMPFileTransfer

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link.
    ///   - transfer: The machine, not started.
    package init(transport: Transport, transfer: SMPFileTransfer) {
        self.transport = transport
        self.transfer = transfer
    }

    /// Runs the transfer to its end; task cancellation becomes the machine's `cancel(at:)`.
    ///
    /// - Parameters:
    ///   - onProgress: Bytes done and the file's length, after each chunk.
    ///   - onLog: Lines of detail, the machine's and the transport's.
    /// - Returns: The outcome.
    package func run(onProgress: (Int, Int) -> Void, onLog: (String) -> Void = { _ in }) async -> Outcome {
        let driver = MachineDriver(link: SMPDriverLink(transport: transport), connectionFallback: .seconds(15))
        let report = { (action: SMPFileTransferAction, _: Duration) in
            switch action {
            case .log(let line): onLog(line)
            case .progress(let done, let total): onProgress(done, total)
            case .connect, .send, .disconnect, .startTimer, .cancelTimer, .finish, .fail: break
            }
        }
        switch await driver.run(transfer, report: report, log: onLog) {
        case .completed(let result): return .completed(result)
        case .failed(let error, let reached): return .failed(error, deviceWasReached: reached)
        }
    }
}

extension SMPFileTransfer: SMPDrivenMachine {
    package static var connectionTimer: SMPExchangeTimer { .connection }
    package static var cancelled: SMPExchangeError { .cancelled }

    package static func step(
        _ action: SMPFileTransferAction
    ) -> DriverStep<SMPLinkOperation, SMPExchangeTimer, SMPFileTransferResult, SMPExchangeError> {
        switch action {
        case .connect: .perform(.connect)
        case .send(let frame): .perform(.send(frame))
        case .disconnect: .disconnect
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .log, .progress: .report
        case .finish(let result): .finish(result)
        case .fail(let error): .fail(error)
        }
    }
}

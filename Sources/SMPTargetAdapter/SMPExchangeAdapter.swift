package import DeviceLink
package import SMP

/// The I/O shell around `SMPExchange`: one management request (`image list`, `reset`, `echo`, …) over any
/// `SMPTransport`.
///
/// It performs the machine's actions, feeds back what happened, and keeps the machine's timers on the transport's
/// clock. It makes no protocol decision (style §23).
package struct SMPExchangeAdapter<Transport: SMPTransport>: Sendable {
    /// How the exchange ended.
    package enum Outcome: Sendable, Equatable {
        /// The device answered.
        case completed(SMPExchangeResult)
        /// The machine gave up; `deviceWasReached` says whether any connection succeeded.
        case failed(SMPExchangeError, deviceWasReached: Bool)
    }

    private let transport: Transport
    private let exchange: SMPExchange

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link.
    ///   - exchange: The machine, not started.
    package init(transport: Transport, exchange: SMPExchange) {
        self.transport = transport
        self.exchange = exchange
    }

    /// Runs the exchange to its end; task cancellation becomes the machine's `cancel(at:)`.
    ///
    /// - Parameter onLog: Receives lines of detail, the machine's and the transport's (a console's log lines).
    /// - Returns: The outcome.
    package func run(onLog: (String) -> Void = { _ in }) async -> Outcome {
        let driver = MachineDriver(link: SMPDriverLink(transport: transport), connectionFallback: .seconds(15))
        let report = { (action: SMPExchangeAction, _: Duration) in
            if case .log(let line) = action { onLog(line) }
        }
        switch await driver.run(exchange, report: report, log: onLog) {
        case .completed(let result): return .completed(result)
        case .failed(let error, let reached): return .failed(error, deviceWasReached: reached)
        }
    }
}

extension SMPExchange: SMPDrivenMachine {
    package static var connectionTimer: SMPExchangeTimer { .connection }
    package static var cancelled: SMPExchangeError { .cancelled }

    package static func step(
        _ action: SMPExchangeAction
    ) -> DriverStep<SMPLinkOperation, SMPExchangeTimer, SMPExchangeResult, SMPExchangeError> {
        switch action {
        case .connect: .perform(.connect)
        case .send(let frame): .perform(.send(frame))
        case .disconnect: .disconnect
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .log: .report
        case .finish(let result): .finish(result)
        case .fail(let error): .fail(error)
        }
    }
}

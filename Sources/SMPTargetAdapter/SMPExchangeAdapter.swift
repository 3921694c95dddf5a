package import SMP

/// The I/O shell around `SMPExchange`: one management request (`image list`, `reset`, `echo`, …) over any
/// ``SMPTransport``.
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
        let driver = SMPMachineDriver(transport: transport, connectionFallback: .seconds(15))
        switch await driver.run(exchange, publish: { _, _ in }, log: onLog) {
        case .completed(let result): return .completed(result)
        case .failed(let error, let reached): return .failed(error, deviceWasReached: reached)
        }
    }
}

extension SMPExchange: SMPDrivenMachine {
    static var connectionTimer: SMPExchangeTimer { .connection }

    static func step(
        _ action: SMPExchangeAction
    ) -> SMPDriverStep<SMPExchangeTimer, SMPExchangeResult, SMPExchangeError> {
        switch action {
        case .connect: .connect
        case .send(let frame): .send(frame)
        case .disconnect: .disconnect
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .log(let line): .log(line)
        case .finish(let result): .finish(result)
        case .fail(let error): .fail(error)
        }
    }
}

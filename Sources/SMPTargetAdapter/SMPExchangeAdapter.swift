public import SMP

/// The I/O shell around ``SMPExchange``: one management request (`image list`, `reset`, `echo`, …) over any
/// ``SMPTransport``.
///
/// It performs the machine's actions, feeds back what happened, and keeps the machine's timers on the transport's
/// clock. It makes no protocol decision (style §23).
public struct SMPExchangeAdapter<Transport: SMPTransport>: Sendable {
    /// How the exchange ended.
    public enum Outcome: Sendable, Equatable {
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
    public init(transport: Transport, exchange: SMPExchange) {
        self.transport = transport
        self.exchange = exchange
    }

    /// Runs the exchange to its end; task cancellation becomes the machine's `cancel(at:)`.
    ///
    /// - Parameter onLog: Receives lines of detail, the machine's and the transport's (a console's log lines).
    /// - Returns: The outcome.
    public func run(onLog: (String) -> Void = { _ in }) async -> Outcome {
        var machine = exchange
        let clock = transport.clock
        let start = clock.now
        func now() -> Duration { start.duration(to: clock.now) }
        var timers: [SMPExchangeTimer: Duration] = [:]
        var cancelled = false
        var pending = machine.start(at: now())
        while true {
            var followUps: [SMPExchangeAction] = []
            for action in pending {
                switch action {
                case .connect:
                    let deadline = start.advanced(by: timers[.connection] ?? now() + .seconds(15))
                    do {
                        let mtu = try await transport.connect(deadline: deadline)
                        followUps += machine.connected(mtu: mtu, at: now())
                    } catch {
                        // A transport gives up its connection attempt when the task is cancelled: that is the user's
                        // interrupt, not a device that was not found.
                        if Task.isCancelled, !cancelled {
                            cancelled = true
                            followUps += machine.cancel(at: now())
                        } else {
                            followUps += machine.transportFailed(error.failure, at: now())
                        }
                    }
                case .send(let frame):
                    do {
                        try await transport.send(frame)
                    } catch {
                        followUps += machine.transportFailed(error.failure, at: now())
                    }
                case .disconnect:
                    await transport.disconnect()
                case .startTimer(let timer, let deadline):
                    timers[timer] = deadline
                case .cancelTimer(let timer):
                    timers[timer] = nil
                case .log(let line):
                    onLog(line)
                case .finish(let result):
                    await transport.disconnect()
                    return .completed(result)
                case .fail(let error):
                    await transport.disconnect()
                    return .failed(error, deviceWasReached: machine.deviceWasReached)
                }
            }
            pending = followUps
            if !cancelled && Task.isCancelled {
                cancelled = true
                pending += machine.cancel(at: now())
            }
            guard pending.isEmpty else { continue }
            let nextTimer = timers.min { $0.value < $1.value }
            var waitUntil = nextTimer?.value ?? now() + .seconds(3600)
            if !cancelled {
                waitUntil = min(waitUntil, now() + SMPTargetAdapter<Transport>.cancellationPollInterval)
            }
            let event: SMPTransportEvent?
            do {
                event = try await transport.nextEvent(until: start.advanced(by: waitUntil))
            } catch {
                pending = machine.transportFailed(error.failure, at: now())
                continue
            }
            switch event {
            case .frame(let bytes):
                pending = machine.receive(bytes, at: now())
            case .disconnected:
                pending = machine.transportDisconnected(at: now())
            case .log(let line):
                onLog(line)
                // A chatty console must not hold the timers off.
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            case nil:
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            }
        }
    }

    /// Fires `timer` when it is due.
    private func fireDue(
        _ timer: (key: SMPExchangeTimer, value: Duration)?, timers: inout [SMPExchangeTimer: Duration],
        machine: inout SMPExchange, at now: Duration
    ) -> [SMPExchangeAction] {
        guard let timer, now >= timer.value else { return [] }
        timers[timer.key] = nil
        return machine.timerFired(timer.key, at: now)
    }
}

import DeviceLink
import SMP

/// An SMP machine the driver can run: `SMPUploader` and `SMPExchange` take the same inputs, and their actions
/// read as the same steps.
protocol SMPDrivenMachine: Sendable {
    /// The machine's action type.
    associatedtype Action: Sendable
    /// The machine's timer type.
    associatedtype Timer: Hashable & Sendable
    /// What a finished run gives.
    associatedtype Result: Sendable
    /// Why a run failed.
    associatedtype Failure: Sendable

    /// The timer that bounds a connection attempt.
    static var connectionTimer: Timer { get }
    var deviceWasReached: Bool { get }
    mutating func start(at now: Duration) -> [Action]
    mutating func connected(mtu: Int, at now: Duration) -> [Action]
    mutating func receive(_ bytes: [UInt8], at now: Duration) -> [Action]
    mutating func transportDisconnected(at now: Duration) -> [Action]
    mutating func transportFailed(_ failure: LinkError, at now: Duration) -> [Action]
    mutating func timerFired(_ timer: Timer, at now: Duration) -> [Action]
    mutating func cancel(at now: Duration) -> [Action]

    /// What the driver does for `action`.
    static func step(_ action: Action) -> SMPDriverStep<Timer, Result, Failure>
}

/// One action as the driver reads it.
enum SMPDriverStep<Timer, Result, Failure> {
    case connect
    case send([UInt8])
    case disconnect
    case startTimer(Timer, deadline: Duration)
    case cancelTimer(Timer)
    case log(String)
    /// Something for the caller only (progress).
    case publish
    case finish(Result)
    case fail(Failure)
}

/// How a driven run ended.
enum SMPDriverOutcome<Result, Failure> {
    case completed(Result)
    case failed(Failure, deviceWasReached: Bool)
}

/// The one I/O loop of ``SMPTargetAdapter`` and ``SMPExchangeAdapter``.
///
/// It performs an SMP machine's actions on a transport, feeds back what happened and keeps its timers on the
/// transport's clock. It makes no protocol decision (style §23). Task cancellation becomes the machine's `cancel(at:)`, also when it interrupts a
/// connection attempt (the user's interrupt, not a device that was not found).
struct SMPMachineDriver<Transport: SMPTransport> {
    let transport: Transport
    /// The connection deadline when the machine has set no connection timer.
    let connectionFallback: Duration

    func run<Machine: SMPDrivenMachine>(
        _ initial: Machine, publish: (Machine.Action, Duration) -> Void, log: (String) -> Void
    ) async -> SMPDriverOutcome<Machine.Result, Machine.Failure> {
        var machine = initial
        let clock = transport.clock
        let start = clock.now
        func now() -> Duration { start.duration(to: clock.now) }
        var timers: [Machine.Timer: Duration] = [:]
        var cancelled = false
        var pending = machine.start(at: now())
        while true {
            var followUps: [Machine.Action] = []
            for action in pending {
                switch Machine.step(action) {
                case .connect:
                    let deadline = start.advanced(by: timers[Machine.connectionTimer] ?? now() + connectionFallback)
                    do {
                        let mtu = try await transport.connect(deadline: deadline)
                        followUps += machine.connected(mtu: mtu, at: now())
                    } catch {
                        if Task.isCancelled, !cancelled {
                            cancelled = true
                            followUps += machine.cancel(at: now())
                        } else {
                            followUps += machine.transportFailed(error, at: now())
                        }
                    }
                case .send(let frame):
                    do {
                        try await transport.send(frame)
                    } catch {
                        followUps += machine.transportFailed(error, at: now())
                    }
                case .disconnect:
                    await transport.disconnect()
                case .startTimer(let timer, let deadline):
                    timers[timer] = deadline
                case .cancelTimer(let timer):
                    timers[timer] = nil
                case .log(let line):
                    log(line)
                case .publish:
                    publish(action, now())
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
            if !cancelled { waitUntil = min(waitUntil, now() + SMPTargetAdapter<Transport>.cancellationPollInterval) }
            let event: SMPTransportEvent?
            do {
                event = try await transport.nextEvent(until: start.advanced(by: waitUntil))
            } catch {
                pending = machine.transportFailed(error, at: now())
                continue
            }
            switch event {
            case .frame(let bytes):
                pending = machine.receive(bytes, at: now())
            case .disconnected:
                pending = machine.transportDisconnected(at: now())
            case .log(let line):
                log(line)
                // A chatty console must not hold the timers off.
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            case nil:
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            }
        }
    }

    /// Fires `timer` when it is due.
    private func fireDue<Machine: SMPDrivenMachine>(
        _ timer: (key: Machine.Timer, value: Duration)?, timers: inout [Machine.Timer: Duration],
        machine: inout Machine, at now: Duration
    ) -> [Machine.Action] {
        guard let timer, now >= timer.value else { return [] }
        timers[timer.key] = nil
        return machine.timerFired(timer.key, at: now)
    }
}

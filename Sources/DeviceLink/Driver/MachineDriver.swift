/// The one I/O loop of every sans-IO machine: nRF5 DFU's `DFUController`, SMP's `SMPUploader` and the SMP
/// management exchange.
///
/// It performs a machine's actions on a ``DriverLink``, feeds back what happened, and keeps the machine's timers on
/// the link's clock. It makes no protocol decision (style §23): what an action means, and what a failure or an event
/// does, is the machine's. Task cancellation becomes the machine's `cancel(at:)`, also when it interrupts a
/// connection attempt (the user's interrupt, not a device that was not found), and the clean-up the machine asks for
/// then (an Abort, a disconnection) still goes out before `run` returns.
///
/// A caller that holds a ``PauseGate`` (``PauseGate/current``) can pause the run between two steps and resume it
/// where it stood.
///
/// In one list of actions, the link operations are performed in order. When one fails, the machine is told; after a
/// lost link the rest of the list's link operations are skipped (they would fail the same way) while its timers and
/// reports still count, and after any other failure the rest of the list is dropped: the machine decides anew.
package struct MachineDriver<Link: DriverLink>: Sendable {
    /// The link to the device.
    package let link: Link
    /// The connection deadline when the machine has set no connection timer.
    package let connectionFallback: Duration

    /// How often a waiting driver looks at task cancellation; also the longest a Ctrl-C waits to be noticed.
    package static var cancellationPollInterval: Duration { .milliseconds(100) }

    /// Creates a driver.
    ///
    /// - Parameters:
    ///   - link: The link to the device.
    ///   - connectionFallback: The connection deadline when the machine has set no connection timer.
    package init(link: Link, connectionFallback: Duration) {
        self.link = link
        self.connectionFallback = connectionFallback
    }

    /// Runs a machine to its end.
    ///
    /// - Parameters:
    ///   - initial: The machine, not yet started.
    ///   - report: Receives each action that is for the caller (progress, log lines), with the session time.
    ///   - log: Receives the link's own log lines (a serial console's output).
    /// - Returns: What the machine finished with, or why it failed.
    package func run<Machine: DrivenMachine>(
        _ initial: Machine, report: (Machine.Action, Duration) -> Void, log: (String) -> Void
    ) async -> DriverOutcome<Machine.Result, Machine.Failure>
    where
        Machine.Operation == Link.Operation, Machine.Completion == Link.Completion, Machine.Message == Link.Message
    {
        var machine = initial
        let clock = link.clock
        let start = clock.now
        func now() -> Duration { start.duration(to: clock.now) }
        var timers: [Machine.Timer: Duration] = [:]
        var cancelled = false
        let gate = PauseGate.current
        var pending = machine.start(at: now())

        while true {
            if let gate, gate.isPaused, !Task.isCancelled {
                let paused = clock.now
                log("paused")
                await gate.waitWhilePaused()
                let pause = paused.duration(to: clock.now)
                // No answer times out because of the pause.
                timers = timers.mapValues { $0 + pause }
                log("resumed after a pause of \(pause)")
            }
            var followUps: [Machine.Action] = []
            var skipsLinkOperations = false
            actions: for (index, action) in pending.enumerated() {
                switch Machine.step(action) {
                case .perform(let operation):
                    if skipsLinkOperations { continue }
                    // A connection timer the machine starts in the same list, after the connect, applies to it.
                    let startedLater = pending[(index + 1)...].lazy.compactMap { action -> Duration? in
                        if case .startTimer(Machine.connectionTimer, let deadline) = Machine.step(action) {
                            deadline
                        } else {
                            nil
                        }
                    }.first
                    let deadline = startedLater ?? timers[Machine.connectionTimer] ?? now() + connectionFallback
                    do {
                        let completion = try await link.perform(
                            operation, connectionDeadline: start.advanced(by: deadline))
                        if let completion { followUps += machine.completed(completion, at: now()) }
                    } catch {
                        if Task.isCancelled, !cancelled, Machine.isConnection(operation) {
                            cancelled = true
                            followUps += machine.cancel(at: now())
                            break actions
                        }
                        followUps += machine.failed(error, during: operation, at: now())
                        guard error.kind == .linkLost, !Machine.isConnection(operation) else { break actions }
                        skipsLinkOperations = true
                    }
                case .disconnect:
                    await link.disconnect()
                case .startTimer(let timer, let deadline):
                    timers[timer] = deadline
                case .cancelTimer(let timer):
                    timers[timer] = nil
                case .report:
                    report(action, now())
                case .finish(let result):
                    if Machine.disconnectsWhenFinished { await link.disconnect() }
                    return .completed(result)
                case .fail(let failure):
                    await link.disconnect()
                    return .failed(failure, deviceWasReached: machine.deviceWasReached)
                }
            }
            pending = followUps
            if !cancelled && Task.isCancelled {
                cancelled = true
                pending += machine.cancel(at: now())
            }
            guard pending.isEmpty else { continue }

            // Nothing to do until the device speaks or a timer fires.
            let nextTimer = timers.min { $0.value < $1.value }
            var waitUntil = nextTimer?.value ?? now() + .seconds(3600)
            if !cancelled { waitUntil = min(waitUntil, now() + Self.cancellationPollInterval) }
            let event: LinkEvent<Machine.Message>?
            do {
                event = try await link.nextEvent(until: start.advanced(by: waitUntil))
            } catch {
                pending = machine.failed(error, during: nil, at: now())
                continue
            }
            switch event {
            case .message(let message):
                pending = machine.received(message, at: now())
            case .disconnected:
                pending = machine.linkLost(at: now())
            case .log(let line):
                log(line)
                // A chatty console must not hold the timers off.
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            case nil:
                if cancelled, Task.isCancelled, now() < waitUntil {
                    // The link's waits end at once in a cancelled task. The clean-up already went out; waiting for
                    // its answer would spin until the response timer, so the run ends here.
                    await link.disconnect()
                    return .failed(Machine.cancelled, deviceWasReached: machine.deviceWasReached)
                }
                pending = fireDue(nextTimer, timers: &timers, machine: &machine, at: now())
            }
        }
    }

    /// Fires `timer` when it is due.
    private func fireDue<Machine: DrivenMachine>(
        _ timer: (key: Machine.Timer, value: Duration)?, timers: inout [Machine.Timer: Duration],
        machine: inout Machine, at now: Duration
    ) -> [Machine.Action] {
        guard let timer, now >= timer.value else { return [] }
        timers[timer.key] = nil
        return machine.timerFired(timer.key, at: now)
    }
}

/// How a driven run ended.
package enum DriverOutcome<Result: Sendable, Failure: Sendable>: Sendable {
    /// The machine finished.
    case completed(Result)
    /// The machine gave up; `deviceWasReached` is its record of whether any connection succeeded.
    case failed(Failure, deviceWasReached: Bool)
}

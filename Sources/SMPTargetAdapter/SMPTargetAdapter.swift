public import SMP

/// The I/O shell around ``SMPUploader``.
///
/// It performs the machine's actions on an ``SMPTransport``, feeds back what happened, and keeps its timers on the
/// transport's clock. It makes no protocol decision (style §23).
public struct SMPTargetAdapter<Transport: SMPTransport>: Sendable {
    /// How an update ended.
    public enum Outcome: Sendable, Equatable {
        /// The device's state shows the image as asked.
        case completed(SMPUploadResult)
        /// The machine gave up; `deviceWasReached` says whether any connection succeeded.
        case failed(SMPUploadError, deviceWasReached: Bool)
    }

    /// What the adapter publishes while the update runs.
    public enum Event: Sendable, Equatable {
        /// Progress, with the session time it was reported at.
        case progress(SMPProgress, elapsed: Duration)
        /// A line of detail.
        case log(String)
    }

    private let transport: Transport
    private let uploader: SMPUploader

    /// How often a waiting adapter looks at task cancellation.
    public static var cancellationPollInterval: Duration { .milliseconds(100) }

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link.
    ///   - uploader: The machine, not started.
    public init(transport: Transport, uploader: SMPUploader) {
        self.transport = transport
        self.uploader = uploader
    }

    /// Runs the update to its end.
    ///
    /// - Parameter onEvent: Receives progress and log lines.
    /// - Returns: The outcome.
    public func run(onEvent: (Event) -> Void) async -> Outcome {
        var machine = uploader
        let clock = transport.clock
        let start = clock.now
        func now() -> Duration { start.duration(to: clock.now) }
        var timers: [SMPTimer: Duration] = [:]
        var cancelled = false
        var pending = machine.start(at: now())
        while true {
            var followUps: [SMPAction] = []
            for action in pending {
                switch action {
                case .connect:
                    let deadline = start.advanced(by: timers[.connection] ?? now() + .seconds(30))
                    do {
                        let mtu = try await transport.connect(deadline: deadline)
                        followUps += machine.connected(mtu: mtu, at: now())
                    } catch {
                        // A transport gives up its connection attempt when the task is cancelled: that is the user's
                        // interrupt (130), not a device that was not found.
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
                case .progress(let progress):
                    onEvent(.progress(progress, elapsed: now()))
                case .log(let line):
                    onEvent(.log(line))
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
            if !cancelled { waitUntil = min(waitUntil, now() + Self.cancellationPollInterval) }
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
                onEvent(.log(line))
                // A chatty console must not hold the timers off.
                if let nextTimer, now() >= nextTimer.value {
                    timers[nextTimer.key] = nil
                    pending = machine.timerFired(nextTimer.key, at: now())
                }
            case nil:
                if let nextTimer, now() >= nextTimer.value {
                    timers[nextTimer.key] = nil
                    pending = machine.timerFired(nextTimer.key, at: now())
                }
            }
        }
    }
}

package import DFUController
import DeviceLink

/// The I/O shell around `DFUController`: performs its actions on a ``GATTTransport``, feeds back what happened,
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
        /// The controller gave up. A transport failure is inside the error, typed (``LinkError.Kind``);
        /// `deviceWasReached` says whether any connection to the device succeeded (the controller's record), so a
        /// caller can tell a device that vanished from one never found without looking at progress events.
        case failed(DFUError, deviceWasReached: Bool)
    }

    private let transport: Transport
    private let controllerTemplate: DFUController

    /// How often a waiting adapter looks at task cancellation; also the longest a Ctrl-C waits to be noticed.
    package static var cancellationPollInterval: Duration { .milliseconds(100) }

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - transport: The link to the device.
    ///   - controller: The controller, not yet started.
    package init(transport: Transport, controller: DFUController) {
        self.transport = transport
        self.controllerTemplate = controller
    }

    /// Runs the update to its end.
    ///
    /// - Parameter onEvent: Receives phases, progress and log lines as they happen.
    /// - Returns: What the device confirmed, or why the update failed.
    package func run(onEvent: (DFUSessionEvent) -> Void) async -> Outcome {
        var controller = controllerTemplate
        let clock = transport.clock
        let start = clock.now
        func now() -> Duration { start.duration(to: clock.now) }
        var timers: [DFUTimer: Duration] = [:]
        var meter = RateMeter()
        var cancelled = false
        var pending = controller.start(at: now())

        while true {
            var completions: [Completion] = []
            var actionIndex = 0
            // After link loss the list's remaining GATT operations are skipped (the loss comes as an event next),
            // but its timers, reports and final outcome still count.
            var linkLost = false
            actions: while actionIndex < pending.count {
                let action = pending[actionIndex]
                actionIndex += 1
                if linkLost, action.isGATTOperation { continue }
                switch action {
                case .connect, .enableNotifications, .write, .writePackets, .read:
                    // The controller starts the connection timer in the same list, after `.connect`: its figure
                    // applies (an unknown one gets 30 s).
                    let startedLater = pending[actionIndex...].lazy.compactMap { action -> Duration? in
                        if case .startTimer(.connection, let deadline) = action { deadline } else { nil }
                    }.first
                    let connectionDeadline = start.advanced(
                        by: startedLater ?? timers[.connection] ?? now() + .seconds(30))
                    do {
                        if let completion = try await perform(action, connectionDeadline: connectionDeadline) {
                            completions.append(completion)
                        }
                    } catch {
                        if error.kind == .linkLost, action.transportOperation != .connect {
                            linkLost = true
                            continue actions
                        }
                        completions.append(.failed(TransportFailure(operation: action.transportOperation, error)))
                        break actions
                    }
                case .startTimer(let timer, let deadline):
                    timers[timer] = deadline
                case .cancelTimer(let timer):
                    timers[timer] = nil
                case .disconnect:
                    await transport.disconnect()
                case .progress(let progress):
                    onEvent(meter.report(progress, at: now()))
                case .log(let line):
                    onEvent(.log(line))
                case .finish(let summary):
                    return .completed(summary)
                case .fail(let error):
                    await transport.disconnect()
                    return .failed(error, deviceWasReached: controller.deviceWasReached)
                }
            }
            pending = []
            for completion in completions {
                switch completion {
                case .connected(let connection):
                    pending += controller.connected(
                        mtu: connection.mtu, characteristics: connection.characteristics, address: connection.address,
                        at: now())
                case .written:
                    pending += controller.writeCompleted(at: now())
                case .read(let value):
                    pending += controller.readCompleted(value, at: now())
                case .failed(let failure):
                    pending += controller.transportFailed(failure, at: now())
                }
            }
            if !cancelled && Task.isCancelled {
                cancelled = true
                pending += controller.cancel(at: now())
            }
            guard pending.isEmpty else { continue }

            // Nothing to do until the device speaks or a timer fires.
            let nextTimer = timers.min { $0.value < $1.value }
            var waitUntil = nextTimer?.value ?? now() + .seconds(3600)
            if !cancelled { waitUntil = min(waitUntil, now() + Self.cancellationPollInterval) }
            let event: GATTEvent?
            do {
                event = try await transport.nextEvent(until: start.advanced(by: waitUntil))
            } catch {
                pending = controller.transportFailed(TransportFailure(operation: .link, error), at: now())
                continue
            }
            switch event {
            case .notification(let characteristic, let value):
                pending = controller.receive(notification: value, from: characteristic, at: now())
            case .disconnected:
                pending = controller.transportDisconnected(at: now())
            case nil:
                if cancelled, Task.isCancelled, now() < waitUntil {
                    // The transport's waits end at once in a cancelled task. The Abort (or Reset) already went out;
                    // waiting for its answer would spin until the response timer, so the update ends here.
                    await transport.disconnect()
                    return .failed(.cancelled, deviceWasReached: controller.deviceWasReached)
                }
                if let nextTimer, now() >= nextTimer.value {
                    timers[nextTimer.key] = nil
                    pending = controller.timerFired(nextTimer.key, at: now())
                }
            }
        }
    }

    /// Performs one GATT operation; returns what the controller must be told when it completes.
    private func perform(
        _ action: DFUAction,
        connectionDeadline: Transport.SessionClock.Instant
    ) async throws(LinkError) -> Completion? {
        switch action {
        case .connect(let request):
            return .connected(try await transport.connect(request, deadline: connectionDeadline))
        case .enableNotifications(let characteristic):
            try await transport.enableNotifications(characteristic)
            return .written
        case .write(let characteristic, let value):
            try await transport.write(characteristic, value)
            return .written
        case .writePackets(let characteristic, let packets):
            try await transport.writeWithoutResponse(characteristic, packets)
            return nil
        case .read(let characteristic):
            return .read(try await transport.read(characteristic))
        case .startTimer, .cancelTimer, .disconnect, .progress, .log, .finish, .fail:
            preconditionFailure("perform(_:connectionDeadline:) with a non-GATT action \(action)")
        }
    }

    private enum Completion: Sendable {
        case connected(GATTConnection)
        case written
        case read([UInt8])
        case failed(TransportFailure)
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

extension DFUAction {
    /// The operation a GATT action is, for failure reports.
    fileprivate var transportOperation: TransportOperation {
        switch self {
        case .enableNotifications(let characteristic): .enableNotifications(characteristic)
        case .write(let characteristic, _), .writePackets(let characteristic, _): .write(characteristic)
        case .read(let characteristic): .read(characteristic)
        case .connect: .connect
        case .startTimer, .cancelTimer, .disconnect, .progress, .log, .finish, .fail:
            preconditionFailure("\(self) is not a GATT operation")
        }
    }

    /// Whether the action talks to the device.
    fileprivate var isGATTOperation: Bool {
        switch self {
        case .connect, .enableNotifications, .write, .writePackets, .read: true
        case .startTimer, .cancelTimer, .disconnect, .progress, .log, .finish, .fail: false
        }
    }
}

/// A sans-IO machine as ``MachineDriver`` runs it: inputs in, actions out, no I/O and no clock (style §19–21).
///
/// `DFUController`, `SMPUploader` and `SMPExchange` conform in their adapter modules; each says there how its actions
/// read as driver steps and how the link's completions, messages and failures are its inputs.
package protocol DrivenMachine: Sendable {
    /// The machine's action.
    associatedtype Action: Sendable
    /// The machine's timer.
    associatedtype Timer: Hashable & Sendable
    /// An operation the link performs for the machine (a GATT write, an SMP frame, a connection).
    associatedtype Operation: Sendable
    /// What a performed operation gives back.
    associatedtype Completion: Sendable
    /// What the device sends on its own (a notification, an answer frame).
    associatedtype Message: Sendable
    /// What a finished run gives.
    associatedtype Result: Sendable
    /// Why a run failed.
    associatedtype Failure: Sendable

    /// The timer that bounds a connection attempt.
    static var connectionTimer: Timer { get }
    /// The failure of a run the user interrupted.
    static var cancelled: Failure { get }
    /// Whether the driver drops the link when the machine finishes (an SMP device stays up; a DFU target resets on
    /// its own and the link drops by itself).
    static var disconnectsWhenFinished: Bool { get }

    /// Whether the machine ever connected, for the exit status of a failure.
    var deviceWasReached: Bool { get }

    /// What the driver does for `action`.
    static func step(_ action: Action) -> DriverStep<Operation, Timer, Result, Failure>
    /// Whether `operation` is a connection attempt.
    static func isConnection(_ operation: Operation) -> Bool

    /// Starts the machine.
    mutating func start(at now: Duration) -> [Action]
    /// An operation completed with something to tell.
    mutating func completed(_ completion: Completion, at now: Duration) -> [Action]
    /// An operation failed, or (`operation` nil) the link itself broke while waiting.
    mutating func failed(_ error: LinkError, during operation: Operation?, at now: Duration) -> [Action]
    /// The device sent a message.
    mutating func received(_ message: Message, at now: Duration) -> [Action]
    /// The link dropped.
    mutating func linkLost(at now: Duration) -> [Action]
    /// A timer fired.
    mutating func timerFired(_ timer: Timer, at now: Duration) -> [Action]
    /// The user interrupted.
    mutating func cancel(at now: Duration) -> [Action]
}

/// One action of a machine, as the driver reads it.
package enum DriverStep<Operation, Timer, Result, Failure> {
    /// An operation on the link.
    case perform(Operation)
    /// Drop the link.
    case disconnect
    /// Start (or restart) a timer.
    case startTimer(Timer, deadline: Duration)
    /// Cancel a timer.
    case cancelTimer(Timer)
    /// Something for the caller: progress, a log line.
    case report
    /// The machine finished.
    case finish(Result)
    /// The machine failed.
    case fail(Failure)
}

/// The link a ``MachineDriver`` runs a machine on: it performs operations and reports what the device did.
///
/// Contract (every transport's): one task calls the methods, one at a time; link loss comes out of
/// ``nextEvent(until:)`` exactly once as ``LinkEvent/disconnected(reason:)``, also after ``disconnect()``; an operation
/// that fails because the link dropped throws a ``LinkError`` of kind `linkLost`. Only `nextEvent(until:)` reacts to
/// task cancellation (it returns `nil` early): every other operation runs to its end or its own error, so that the
/// clean-up a cancelled machine asks for still goes out.
package protocol DriverLink: Sendable {
    /// An operation the link performs.
    associatedtype Operation: Sendable
    /// What a performed operation gives back.
    associatedtype Completion: Sendable
    /// What the device sends on its own.
    associatedtype Message: Sendable
    /// The clock the deadlines are on: `ContinuousClock` for real links, virtual time for the simulators.
    associatedtype SessionClock: Clock where SessionClock.Duration == Duration

    /// The link's clock.
    var clock: SessionClock { get }

    /// Performs one operation.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - connectionDeadline: When a connection attempt gives up.
    /// - Returns: What the machine must be told, or `nil` for nothing.
    /// - Throws: ``LinkError``.
    func perform(_ operation: Operation, connectionDeadline: SessionClock.Instant) async throws(LinkError)
        -> Completion?

    /// Drops the link; the loss then comes out of ``nextEvent(until:)``.
    func disconnect() async

    /// Waits for the next thing the device does.
    ///
    /// - Parameter deadline: When to stop waiting.
    /// - Returns: The event, or `nil` at the deadline or when the task was cancelled.
    /// - Throws: ``LinkError`` when the link itself broke (not for link loss, which is an event).
    func nextEvent(until deadline: SessionClock.Instant) async throws(LinkError) -> LinkEvent<Message>?
}

/// Something the device (or the link) did on its own.
package enum LinkEvent<Message: Sendable>: Sendable {
    /// A message from the device.
    case message(Message)
    /// The link is down; `reason` is the transport's wording.
    case disconnected(reason: String)
    /// A line of detail from the link itself (a serial console's log line), already escaped; nothing for the machine.
    case log(String)
}

extension LinkEvent: Equatable where Message: Equatable {}

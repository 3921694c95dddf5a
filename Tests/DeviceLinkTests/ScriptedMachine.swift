import DeviceLink
import Synchronization

/// An operation of the test link.
enum ScriptedOperation: Hashable, Sendable, CustomStringConvertible {
    case connect
    case write(Int)

    var description: String {
        switch self {
        case .connect: "connect"
        case .write(let number): "write(\(number))"
        }
    }
}

/// A timer of ``ScriptedMachine``.
enum ScriptedTimer: Hashable, Sendable {
    case connection
    case response
}

/// What ``ScriptedMachine`` was told, in order, with the session time: shared with the test, which reads it after the
/// run.
final class Journal: Sendable {
    private let entries = Mutex<[(String, Duration)]>([])

    func append(_ entry: String, at now: Duration) {
        entries.withLock { $0.append((entry, now)) }
    }

    /// The inputs, without their times.
    var inputs: [String] { entries.withLock { $0.map(\.0) } }

    /// When `input` came first, if it came.
    func time(of input: String) -> Duration? {
        entries.withLock { entries in entries.first { $0.0 == input }?.1 }
    }
}

/// A sans-IO machine for driving ``MachineDriver``: it writes every input into a ``Journal`` and answers each input
/// with the actions the test scripted for it (once; an input without a script gets no actions).
struct ScriptedMachine: DrivenMachine {
    enum Action: Equatable, Sendable {
        case perform(ScriptedOperation)
        case disconnect
        case startTimer(ScriptedTimer, deadline: Duration)
        case cancelTimer(ScriptedTimer)
        case report(String)
        case finish(String)
        case fail(String)
    }

    typealias Timer = ScriptedTimer
    typealias Operation = ScriptedOperation
    typealias Completion = String
    typealias Message = String
    typealias Result = String
    typealias Failure = String

    static var connectionTimer: ScriptedTimer { .connection }
    static var cancelled: String { "cancelled" }
    static var disconnectsWhenFinished: Bool { true }

    let journal: Journal
    /// The actions for each input, keyed by the input as the journal writes it.
    var script: [String: [Action]]
    var deviceWasReached = false

    init(journal: Journal, script: [String: [Action]]) {
        self.journal = journal
        self.script = script
    }

    static func step(_ action: Action) -> DriverStep<ScriptedOperation, ScriptedTimer, String, String> {
        switch action {
        case .perform(let operation): .perform(operation)
        case .disconnect: .disconnect
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .report: .report
        case .finish(let result): .finish(result)
        case .fail(let failure): .fail(failure)
        }
    }

    static func isConnection(_ operation: ScriptedOperation) -> Bool { operation == .connect }

    private mutating func answer(_ input: String, at now: Duration) -> [Action] {
        journal.append(input, at: now)
        return script.removeValue(forKey: input) ?? []
    }

    mutating func start(at now: Duration) -> [Action] { answer("start", at: now) }

    mutating func completed(_ completion: String, at now: Duration) -> [Action] {
        if completion == "connected" { deviceWasReached = true }
        return answer("completed \(completion)", at: now)
    }

    mutating func failed(_ error: LinkError, during operation: ScriptedOperation?, at now: Duration) -> [Action] {
        answer("failed \(error.kind) during \(operation.map(String.init(describing:)) ?? "wait")", at: now)
    }

    mutating func received(_ message: String, at now: Duration) -> [Action] { answer("received \(message)", at: now) }

    mutating func linkLost(at now: Duration) -> [Action] { answer("link lost", at: now) }

    mutating func timerFired(_ timer: ScriptedTimer, at now: Duration) -> [Action] {
        answer("timer \(timer)", at: now)
    }

    mutating func cancel(at now: Duration) -> [Action] { answer("cancel", at: now) }
}

/// A link on virtual time: operations complete at once with `done <operation>` (a connection with `connected`) unless
/// the test scripted a failure; events come from a queue, and an empty queue moves the clock to the deadline.
final class ScriptedLink: DriverLink, Sendable {
    typealias Operation = ScriptedOperation
    typealias Completion = String
    typealias Message = String

    private struct State {
        var failures: [ScriptedOperation: LinkError] = [:]
        var events: [LinkEvent<String>] = []
        var performed: [ScriptedOperation] = []
        var connectionDeadlines: [Duration] = []
        var disconnects = 0
    }

    let clock = VirtualClock()
    /// A connection attempt waits (in real time) until its task is cancelled, then fails as timed out.
    let connectionWaitsForCancellation: Bool
    private let state: Mutex<State>

    init(
        failures: [ScriptedOperation: LinkError] = [:], events: [LinkEvent<String>] = [],
        connectionWaitsForCancellation: Bool = false
    ) {
        state = Mutex(State(failures: failures, events: events))
        self.connectionWaitsForCancellation = connectionWaitsForCancellation
    }

    var performed: [ScriptedOperation] { state.withLock { $0.performed } }
    var connectionDeadlines: [Duration] { state.withLock { $0.connectionDeadlines } }
    var disconnects: Int { state.withLock { $0.disconnects } }

    func perform(_ operation: ScriptedOperation, connectionDeadline: VirtualClock.Instant) async throws(LinkError)
        -> String?
    {
        let failure = state.withLock { state in
            state.performed.append(operation)
            if operation == .connect { state.connectionDeadlines.append(connectionDeadline.offset) }
            return state.failures.removeValue(forKey: operation)
        }
        if operation == .connect && connectionWaitsForCancellation {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            throw .timedOut("the connection attempt was interrupted")
        }
        if let failure { throw failure }
        return operation == .connect ? "connected" : "done \(operation)"
    }

    func disconnect() async {
        state.withLock { $0.disconnects += 1 }
    }

    func nextEvent(until deadline: VirtualClock.Instant) async throws(LinkError) -> LinkEvent<String>? {
        await Task.yield()
        if Task.isCancelled { return nil }
        if let event = state.withLock({ $0.events.isEmpty ? nil : $0.events.removeFirst() }) { return event }
        clock.advance(to: deadline.offset)
        return nil
    }
}

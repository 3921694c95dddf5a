/// The sans-IO machine behind the mcumgr-style verbs: connect, send one request, wait for its answer (style §19–21).
///
/// | state | waits for | next |
/// | --- | --- | --- |
/// | idle | `start(at:)` | connecting |
/// | connecting | `connected(mtu:at:)` | awaiting answer (the request sent) |
/// | awaiting answer | an answer with one of the request's sequence numbers | ended; for reset, resetting; for a state change, awaiting answer to the state read |
/// | resetting | link loss | ended (reset) |
/// | awaiting link loss | link loss after nrfloader disconnected (no answer in time) | connecting, then the request again |
/// | ended | nothing | – |
///
/// Answers are matched by sequence number: an answer to another request (a late one from an earlier session on the
/// same serial port) is ignored. A lost answer (the response timer, or the link dropping first) sends the request
/// again on a new connection, up to ``SMPExchangeConfiguration/maximumAttempts`` sends in all; an answer to any of
/// them is the answer. A reset is done when the link drops, answered or not: the device may reset before its answer
/// leaves.
///
/// A request that changes the image state (test, confirm, erase) is not done when the device accepts it: the machine
/// then reads the state afresh, as a request of its own with the same retries, and ends with what that read shows. A
/// read that does not show the change fails the exchange (``SMPExchangeError/notApplied(_:shows:)``): a device that
/// lies, or loses the write, answers the write itself the same way as one that did it.
package import DeviceLink

package struct SMPExchange: Sendable {
    private let request: SMPManagementRequest
    private let configuration: SMPExchangeConfiguration
    private var state: State = .idle
    private var nextSequence: UInt8 = 0
    /// What is being asked now: the request, or the state read that checks it.
    private var step = Step.request
    /// The sequence numbers the current step's request went out with, oldest first.
    private var sequences: [UInt8] = []
    /// How many times the request itself was sent, once the read that checks it has begun.
    private var requestAttempts = 0
    /// The sequence number of the last answer that belonged to no request of this exchange.
    private var straySequence: UInt8?
    private var hasConnected = false

    /// The request on the wire at each step.
    private enum Step: Sendable {
        /// The user's request.
        case request
        /// The image state read after a state change.
        case readBack
    }

    /// Where the machine is.
    private enum State: Sendable {
        /// Not started.
        case idle
        /// A connection attempt is under way.
        case connecting
        /// The request is out.
        case awaitingAnswer
        /// The device answered reset; the link is due to drop.
        case resetting
        /// nrfloader dropped the link after a lost answer; it connects again once the loss is reported.
        case awaitingLinkLoss
        /// Finished or failed; accepts nothing further.
        case ended
    }

    /// Creates the machine.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - configuration: The policy.
    package init(request: SMPManagementRequest, configuration: SMPExchangeConfiguration = SMPExchangeConfiguration()) {
        precondition(configuration.maximumAttempts >= 1, "an exchange needs at least one attempt")
        self.request = request
        self.configuration = configuration
    }

    /// Whether the device was ever connected, for the exit status of a failure.
    package var deviceWasReached: Bool { hasConnected }

    // MARK: - Inputs

    /// Starts the exchange.
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    package mutating func start(at now: Duration) -> [SMPExchangeAction] {
        guard case .idle = state else { preconditionFailure("start(at:) in state \(state)") }
        return connect(at: now)
    }

    /// The transport connected.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU (or the serial frame limit).
    ///   - now: Session time.
    /// - Returns: The actions.
    package mutating func connected(mtu: Int, at now: Duration) -> [SMPExchangeAction] {
        guard case .connecting = state else { preconditionFailure("connected(mtu:at:) in state \(state)") }
        hasConnected = true
        return [.cancelTimer(.connection), .log("connected, MTU \(mtu)")] + send(at: now)
    }

    /// A complete SMP frame arrived.
    ///
    /// - Parameters:
    ///   - bytes: The frame.
    ///   - now: Session time.
    /// - Returns: The actions.
    package mutating func receive(_ bytes: [UInt8], at now: Duration) -> [SMPExchangeAction] {
        switch state {
        case .awaitingAnswer:
            break
        case .connecting, .resetting, .awaitingLinkLoss:
            // Nothing is awaited: a duplicate, or an answer that outlived the connection it was asked on.
            return [.log("ignored an answer while nothing is awaited (\(bytes.count) bytes)")]
        case .ended:
            return []
        case .idle:
            preconditionFailure("receive(_:at:) before start")
        }
        let frame: SMPFrame
        do {
            frame = try SMPFrame(decoding: bytes)
        } catch {
            return fail(.protocolViolation("answer '\(hexString(bytes.prefix(24)))': \(error)"))
        }
        guard frame.header.operation.isResponse else {
            return fail(.protocolViolation("device sent a \(frame.header.operation) request, not an answer"))
        }
        guard let attempt = sequences.firstIndex(of: frame.header.sequence).map({ $0 + 1 }) else {
            straySequence = frame.header.sequence
            return [.log("ignored an answer with seq \(frame.header.sequence), not the request's")]
        }
        let asked = currentRequest
        guard frame.header.group == asked.groupID, frame.header.command == asked.commandID else {
            return fail(
                .protocolViolation(
                    "answer with seq \(frame.header.sequence) is for group \(frame.header.group) command "
                        + "\(frame.header.command), not \(asked)"))
        }
        do {
            if let error = try SMPResponse.error(in: frame.body) {
                return fail(.rejected(asked, error, attempt: attempt))
            }
        } catch {
            return fail(.protocolViolation("\(asked) answer: \(error)"))
        }
        straySequence = nil
        if case .readBack = step {
            do {
                let state = try ImageStateResponse(body: frame.body)
                if let problem = request.unappliedChange(in: state) {
                    return fail(.notApplied(request, shows: problem))
                }
                return finish(request.verifiedReply(state))
            } catch {
                return fail(.protocolViolation("\(asked) answer: \(error)"))
            }
        }
        if request.changesImageState {
            step = .readBack
            requestAttempts = sequences.count
            sequences = []
            return [.cancelTimer(.response), .log("device accepted \(request); reading its image state")]
                + send(at: now)
        }
        if request == .reset {
            state = .resetting
            return [
                .cancelTimer(.response), .log("device answered reset; waiting for the link to drop"),
                .startTimer(.linkLoss, deadline: now + configuration.resetTimeout),
            ]
        }
        do {
            return finish(try request.reply(from: frame.body))
        } catch {
            return fail(.protocolViolation("\(request) answer: \(error)"))
        }
    }

    /// The link went down (also after a ``SMPExchangeAction/disconnect``).
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    package mutating func transportDisconnected(at now: Duration) -> [SMPExchangeAction] {
        switch state {
        case .resetting:
            return finish(.reset(answered: true))
        case .awaitingAnswer where request == .reset:
            // The device reset before its answer reached the host (Zephyr answers first, but a BLE notification or
            // a console line can be lost with the link).
            return [.log("the link dropped before the answer to reset")] + finish(.reset(answered: false))
        case .awaitingAnswer:
            return retry(after: "the link dropped before the answer to \(currentRequest)", at: now)
        case .awaitingLinkLoss:
            return connect(at: now)
        case .connecting:
            // A loss reported for the link that is being replaced: the connection attempt decides.
            return []
        case .ended:
            return []
        case .idle:
            preconditionFailure("transportDisconnected(at:) before start")
        }
    }

    /// A transport operation failed.
    ///
    /// - Parameters:
    ///   - failure: What failed.
    ///   - now: Session time.
    /// - Returns: The actions.
    package mutating func transportFailed(_ failure: LinkError, at now: Duration) -> [SMPExchangeAction] {
        switch state {
        case .awaitingAnswer, .resetting, .awaitingLinkLoss:
            if failure.kind == .linkLost {
                // The loss itself comes as transportDisconnected next.
                return [.log("write failed: \(failure.cause)")]
            }
            return fail(.transport(failure))
        case .connecting:
            return fail(.transport(failure))
        case .ended:
            return []
        case .idle:
            preconditionFailure("transportFailed(_:at:) before start")
        }
    }

    /// A timer fired.
    ///
    /// - Parameters:
    ///   - timer: The timer.
    ///   - now: Session time.
    /// - Returns: The actions.
    package mutating func timerFired(_ timer: SMPExchangeTimer, at now: Duration) -> [SMPExchangeAction] {
        switch (timer, state) {
        case (.connection, .connecting):
            return fail(.timedOut(waitingFor: "the connection", limit: configuration.connectionTimeout))
        case (.response, .awaitingAnswer):
            guard sequences.count < configuration.maximumAttempts else {
                guard let stray = straySequence, let sent = sequences.last else {
                    return fail(.timedOut(waitingFor: "the answer to \(currentRequest)", limit: responseTimeout))
                }
                return fail(
                    .timedOut(
                        waitingFor: "the answer to \(currentRequest) (the device answered with seq \(stray), which "
                            + "belongs to another request; this one went out as seq \(sent))",
                        limit: responseTimeout))
            }
            state = .awaitingLinkLoss
            return [
                .log("no answer to \(currentRequest) within \(responseTimeout); reconnecting to send it again"),
                .disconnect,
            ]
        case (.linkLoss, .resetting):
            return fail(
                .timedOut(
                    waitingFor: "the link to drop after the device answered reset", limit: configuration.resetTimeout))
        case (_, .ended):
            return []
        case (.connection, .awaitingAnswer), (.connection, .resetting), (.connection, .awaitingLinkLoss),
            (.response, .connecting), (.response, .resetting), (.response, .awaitingLinkLoss),
            (.linkLoss, .connecting), (.linkLoss, .awaitingAnswer), (.linkLoss, .awaitingLinkLoss):
            // A timer that outlived its state (cancelled in the same list that it fired): nothing to do.
            return []
        case (_, .idle):
            preconditionFailure("timerFired(_:at:) before start")
        }
    }

    /// The user interrupted: the link is dropped and the exchange fails.
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    package mutating func cancel(at now: Duration) -> [SMPExchangeAction] {
        if case .ended = state { return [] }
        return [.disconnect] + fail(.cancelled)
    }

    // MARK: - Steps

    private var responseTimeout: Duration {
        if case .eraseImage = currentRequest { return configuration.eraseTimeout }
        return configuration.responseTimeout
    }

    /// The request of the current step.
    private var currentRequest: SMPManagementRequest {
        switch step {
        case .request: request
        case .readBack: .readImageState
        }
    }

    private mutating func connect(at now: Duration) -> [SMPExchangeAction] {
        state = .connecting
        return [.startTimer(.connection, deadline: now + configuration.connectionTimeout), .connect]
    }

    private mutating func send(at now: Duration) -> [SMPExchangeAction] {
        let sequence = nextSequence
        nextSequence &+= 1
        sequences.append(sequence)
        state = .awaitingAnswer
        let frame = currentRequest.frame(sequence: sequence, version: configuration.version).encoded()
        return [.send(frame), .startTimer(.response, deadline: now + responseTimeout)]
    }

    private mutating func retry(after reason: String, at now: Duration) -> [SMPExchangeAction] {
        guard sequences.count < configuration.maximumAttempts else {
            return fail(.transport(LinkError(.linkLost, reason)))
        }
        return [.cancelTimer(.response), .log("\(reason); reconnecting to send it again")] + connect(at: now)
    }

    private mutating func finish(_ reply: SMPManagementReply) -> [SMPExchangeAction] {
        state = .ended
        let attempts: Int
        switch step {
        case .request: attempts = sequences.count
        case .readBack: attempts = requestAttempts
        }
        let result = SMPExchangeResult(reply: reply, attempts: attempts)
        return [.cancelTimer(.response), .cancelTimer(.linkLoss), .finish(result)]
    }

    private mutating func fail(_ error: SMPExchangeError) -> [SMPExchangeAction] {
        state = .ended
        return [.cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.linkLoss), .fail(error)]
    }
}

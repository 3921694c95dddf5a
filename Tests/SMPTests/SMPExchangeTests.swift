import DeviceLink
import SMP
import Testing

/// The one-request machine behind the mcumgr-style verbs, driven by hand: each test is a short script of events,
/// checking the actions exactly.
@Suite struct SMPExchangeTests {
    static let hash = [UInt8](repeating: 0xAB, count: 32)

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
    }

    /// A machine that has connected and sent its request; the frame it sent.
    static func sent(
        _ request: SMPManagementRequest, configuration: SMPExchangeConfiguration = SMPExchangeConfiguration()
    ) throws -> (SMPExchange, SMPFrame) {
        var machine = SMPExchange(request: request, configuration: configuration)
        #expect(machine.start(at: .zero) == [.startTimer(.connection, deadline: .seconds(15)), .connect])
        let actions = machine.connected(mtu: 247, at: .milliseconds(10))
        let frame = try #require(frames(actions).first)
        return (machine, frame)
    }

    static func frames(_ actions: [SMPExchangeAction]) -> [SMPFrame] {
        actions.compactMap { action in
            if case .send(let bytes) = action { try? SMPFrame(decoding: bytes) } else { nil }
        }
    }

    static func answer(to request: SMPFrame, _ body: CBORValue, sequence: UInt8? = nil) -> [UInt8] {
        SMPFrame(
            header: SMPHeader(
                operation: request.header.operation.response, version: request.header.version, length: 0,
                group: request.header.group, sequence: sequence ?? request.header.sequence,
                command: request.header.command),
            body: body
        ).encoded(style: .indefinite)
    }

    static let state = ImageStateResponse(slots: [
        ImageSlotState(
            slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true),
        ImageSlotState(slot: 1, version: "2.0.0", hash: hash, isPending: true),
    ])

    @Test("image state read: connect, one v2 read request, and the answer ends it")
    func readState() throws {
        var machine = SMPExchange(request: .readImageState)
        #expect(machine.start(at: .zero) == [.startTimer(.connection, deadline: .seconds(15)), .connect])
        var actions = machine.connected(mtu: 247, at: .milliseconds(10))
        // op 0 (read) | version 1 << 3, flags 0, len 1, group 1 (image), seq 0, id 0 (state); body {} (a0).
        #expect(
            actions == [
                .cancelTimer(.connection), .log("connected, MTU 247"), .send(Self.bytes(hex: "08000001 00010000 a0")),
                .startTimer(.response, deadline: .milliseconds(5010)),
            ])
        let request = try #require(Self.frames(actions).first)
        actions = machine.receive(Self.answer(to: request, Self.state.body), at: .milliseconds(20))
        #expect(
            actions == [
                .cancelTimer(.response), .cancelTimer(.linkLoss),
                .finish(SMPExchangeResult(reply: .imageState(Self.state), attempts: 1)),
            ])
        #expect(machine.receive(Self.answer(to: request, Self.state.body), at: .milliseconds(30)) == [])
    }

    @Test("the requests' bodies: test and confirm by hash, confirm of the running image, erase with and without slot")
    func requestBodies() throws {
        let cases: [(SMPManagementRequest, CBORValue, UInt8, SMPOperation)] = [
            (
                .testImage(hash: Self.hash),
                .map([CBORMapEntry("hash", .bytes(Self.hash)), CBORMapEntry("confirm", .bool(false))]), 0, .write
            ),
            (
                .confirmImage(hash: Self.hash),
                .map([CBORMapEntry("hash", .bytes(Self.hash)), CBORMapEntry("confirm", .bool(true))]), 0, .write
            ),
            (.confirmImage(hash: nil), .map([CBORMapEntry("confirm", .bool(true))]), 0, .write),
            (.eraseImage(slot: nil), .map([]), 5, .write),
            (.eraseImage(slot: 1), .map([CBORMapEntry("slot", .int(1))]), 5, .write),
        ]
        for (request, body, id, operation) in cases {
            let (_, frame) = try Self.sent(request)
            #expect(frame.body == body, "\(request)")
            #expect(frame.header.group == 1 && frame.header.command == id && frame.header.operation == operation)
        }
        // Erase of slot 1: op 2 | v2, len 7, group 1, seq 0, id 5; {"slot": 1} = a1 64 "slot" 01.
        let (_, erase) = try Self.sent(.eraseImage(slot: 1))
        #expect(erase.encoded() == Self.bytes(hex: "0a000007 00010005 a1 64736c6f74 01"))
    }

    @Test("an answer with another sequence number is ignored; the request's own ends the exchange")
    func staleAnswerIgnored() throws {
        var (machine, request) = try Self.sent(.echo("hi"))
        var actions = machine.receive(
            Self.answer(to: request, .map([CBORMapEntry("r", .text("old"))]), sequence: 7), at: .milliseconds(20))
        #expect(actions == [.log("ignored an answer with seq 7, not the request's")])
        actions = machine.receive(Self.answer(to: request, .map([CBORMapEntry("r", .text("hi"))])), at: .zero)
        #expect(actions.last == .finish(SMPExchangeResult(reply: .echoed("hi"), attempts: 1)))
    }

    @Test("a lost answer: reconnect, send again with a new sequence; a late answer to the first copy counts")
    func resendAfterTimeout() throws {
        var (machine, first) = try Self.sent(.readImageState)
        var actions = machine.timerFired(.response, at: .milliseconds(5010))
        #expect(
            actions == [
                .log("no answer to image state read within 5.0 seconds; reconnecting to send it again"), .disconnect,
            ])
        actions = machine.transportDisconnected(at: .milliseconds(5020))
        #expect(actions == [.startTimer(.connection, deadline: .milliseconds(20020)), .connect])
        actions = machine.connected(mtu: 247, at: .milliseconds(5100))
        let second = try #require(Self.frames(actions).first)
        #expect(second.header.sequence == first.header.sequence &+ 1)
        #expect(actions.last == .startTimer(.response, deadline: .milliseconds(10100)))
        actions = machine.receive(Self.answer(to: first, Self.state.body), at: .milliseconds(5200))
        #expect(actions.last == .finish(SMPExchangeResult(reply: .imageState(Self.state), attempts: 2)))
    }

    @Test("every attempt lost: the exchange times out after maximumAttempts sends")
    func attemptsExhausted() throws {
        var configuration = SMPExchangeConfiguration()
        configuration.maximumAttempts = 2
        var (machine, _) = try Self.sent(.echo("x"), configuration: configuration)
        _ = machine.timerFired(.response, at: .seconds(5))
        _ = machine.transportDisconnected(at: .seconds(5))
        _ = machine.connected(mtu: 23, at: .seconds(6))
        let actions = machine.timerFired(.response, at: .seconds(11))
        #expect(
            actions == [
                .cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.linkLoss),
                .fail(.timedOut(waitingFor: "the answer to echo", limit: .seconds(5))),
            ])
        #expect(machine.deviceWasReached)
    }

    @Test(
        "device errors in both forms name the request and the error",
        arguments: [
            (
                CBORValue.map([
                    CBORMapEntry("err", .map([CBORMapEntry("group", .int(1)), CBORMapEntry("rc", .int(8))]))
                ]),
                "device refused image test: rc 8 (IMG_MGMT_ERR_HASH_NOT_FOUND: no image with that hash, or the image "
                    + "has no hash TLV)"
            ),
            (
                CBORValue.map([CBORMapEntry("rc", .int(6))]),
                "device refused image test: rc 6 (MGMT_ERR_EBADSTATE: current state disallows command)"
            ),
            (
                CBORValue.map([
                    CBORMapEntry("err", .map([CBORMapEntry("group", .int(1)), CBORMapEntry("rc", .int(28))]))
                ]),
                "device refused image test: rc 28 (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already an image "
                    + "operation pending)"
            ),
        ])
    func deviceErrors(body: CBORValue, message: String) throws {
        var (machine, request) = try Self.sent(.testImage(hash: Self.hash))
        let actions = machine.receive(Self.answer(to: request, body), at: .milliseconds(20))
        guard case .fail(let error)? = actions.last else {
            Issue.record("no failure: \(actions)")
            return
        }
        #expect("\(error)" == message)
    }

    @Test("already pending after a re-sent test: the message says an earlier copy may have set it")
    func alreadyPendingAfterResend() throws {
        var (machine, _) = try Self.sent(.testImage(hash: Self.hash))
        _ = machine.timerFired(.response, at: .seconds(5))
        _ = machine.transportDisconnected(at: .seconds(5))
        let second = try #require(Self.frames(machine.connected(mtu: 247, at: .seconds(6))).first)
        let body = CBORValue.map([
            CBORMapEntry("err", .map([CBORMapEntry("group", .int(1)), CBORMapEntry("rc", .int(28))]))
        ])
        let actions = machine.receive(Self.answer(to: second, body), at: .seconds(6))
        #expect(
            actions.last
                == .fail(
                    .rejected(
                        .testImage(hash: Self.hash), SMPDeviceError(source: .group(1), rc: 28), attempt: 2)))
        guard case .fail(let error)? = actions.last else { return }
        #expect(
            "\(error)".hasSuffix(
                "; the request was sent 2 times after lost answers, and an earlier copy may have set the state already")
        )
    }

    @Test("reset: the answer, then the link's loss ends it; a loss before the answer is a reset too")
    func reset() throws {
        var (machine, request) = try Self.sent(.reset)
        var actions = machine.receive(Self.answer(to: request, .map([])), at: .milliseconds(20))
        #expect(
            actions == [
                .cancelTimer(.response), .log("device answered reset; waiting for the link to drop"),
                .startTimer(.linkLoss, deadline: .milliseconds(5020)),
            ])
        // A duplicate of the answer changes nothing.
        #expect(machine.receive(Self.answer(to: request, .map([])), at: .milliseconds(30)).count == 1)
        actions = machine.transportDisconnected(at: .milliseconds(700))
        #expect(actions.last == .finish(SMPExchangeResult(reply: .reset(answered: true), attempts: 1)))

        var (unanswered, _) = try Self.sent(.reset)
        actions = unanswered.transportDisconnected(at: .milliseconds(700))
        #expect(actions.last == .finish(SMPExchangeResult(reply: .reset(answered: false), attempts: 1)))
    }

    @Test("reset answered but the link never drops: timed out waiting for it")
    func resetWithoutLinkLoss() throws {
        var (machine, request) = try Self.sent(.reset)
        _ = machine.receive(Self.answer(to: request, .map([])), at: .milliseconds(20))
        let actions = machine.timerFired(.linkLoss, at: .milliseconds(5020))
        guard case .fail(let error)? = actions.last else {
            Issue.record("no failure: \(actions)")
            return
        }
        #expect(
            "\(error)" == "timed out after 5.0 seconds waiting for the link to drop after the device answered reset")
    }

    @Test("an answer for another command, a request instead of an answer, or an echo without 'r' break the protocol")
    func protocolViolations() throws {
        var (machine, request) = try Self.sent(.echo("x"))
        var wrong = request
        wrong.header.command = 5
        wrong.header.operation = .writeResponse
        var actions = machine.receive(wrong.encoded(), at: .zero)
        #expect(actions.last == .fail(.protocolViolation("answer with seq 0 is for group 0 command 5, not echo")))

        (machine, request) = try Self.sent(.echo("x"))
        actions = machine.receive(request.encoded(), at: .zero)
        #expect(actions.last == .fail(.protocolViolation("device sent a write request, not an answer")))

        (machine, request) = try Self.sent(.echo("x"))
        actions = machine.receive(Self.answer(to: request, .map([])), at: .zero)
        #expect(actions.last == .fail(.protocolViolation("echo answer: SMP field 'r' is missing")))
    }

    @Test("a state write answered without state is checked by a fresh read; the link dropping first sends it again")
    func stateWriteWithoutState() throws {
        var (machine, first) = try Self.sent(.confirmImage(hash: nil))
        var actions = machine.transportDisconnected(at: .milliseconds(100))
        #expect(
            actions == [
                .cancelTimer(.response),
                .log("the link dropped before the answer to image confirm; reconnecting to send it again"),
                .startTimer(.connection, deadline: .milliseconds(15100)), .connect,
            ])
        let second = try #require(Self.frames(machine.connected(mtu: 247, at: .milliseconds(200))).first)
        #expect(second.body == first.body)
        actions = machine.receive(Self.answer(to: second, .map([])), at: .milliseconds(300))
        // The write's answer is the write's word: a state read (group 1, id 0, seq 2) follows.
        let read = try #require(Self.frames(actions).first)
        #expect(read.header.group == 1 && read.header.command == 0 && read.header.sequence == 2)
        #expect(actions.first == .cancelTimer(.response))
        actions = machine.receive(Self.answer(to: read, Self.state.body), at: .milliseconds(400))
        #expect(actions.last == .finish(SMPExchangeResult(reply: .stateWritten(Self.state), attempts: 2)))
    }

    static let unconfirmed = ImageStateResponse(slots: [
        ImageSlotState(slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isActive: true),
        ImageSlotState(slot: 1, version: "2.0.0", hash: hash),
    ])

    @Test(
        "a device that accepts a state change and writes nothing is caught by the read after it",
        arguments: [
            (
                SMPManagementRequest.confirmImage(hash: nil),
                "device accepted image confirm, but a fresh read of its image state shows slot 0 active, not confirmed"
            ),
            (
                .testImage(hash: hash),
                "device accepted image test, but a fresh read of its image state shows slot 1 -, not pending"
            ),
            (
                .confirmImage(hash: hash),
                "device accepted image confirm, but a fresh read of its image state shows slot 1 -, neither confirmed "
                    + "nor pending permanently"
            ),
            (
                .eraseImage(slot: nil),
                "device accepted image erase, but a fresh read of its image state shows slot 1 - still holding "
                    + "version 2.0.0"
            ),
        ])
    func lyingStateWrite(request: SMPManagementRequest, message: String) throws {
        var (machine, write) = try Self.sent(request)
        // The write's own answer claims success (Zephyr answers a write with the state; a liar with the state it
        // would have): only the read decides.
        var actions = machine.receive(Self.answer(to: write, Self.state.body), at: .milliseconds(20))
        let read = try #require(Self.frames(actions).first)
        actions = machine.receive(Self.answer(to: read, Self.unconfirmed.body), at: .milliseconds(30))
        let error = SMPExchangeError.notApplied(request, shows: String(message.split(separator: "shows ")[1]))
        #expect(actions.last == .fail(error))
        #expect("\(error)" == message)
    }

    @Test("image erase: the fresh read shows the slot empty; it waits the erase timeout, not the response timeout")
    func erase() throws {
        var (machine, request) = try Self.sent(.eraseImage(slot: 1))
        var fresh = SMPExchange(request: .eraseImage(slot: nil))
        _ = fresh.start(at: .zero)
        #expect(fresh.connected(mtu: 247, at: .zero).last == .startTimer(.response, deadline: .seconds(30)))
        var actions = machine.receive(Self.answer(to: request, .map([])), at: .seconds(3))
        let read = try #require(Self.frames(actions).first)
        #expect(actions.last == .startTimer(.response, deadline: .seconds(8)))
        let empty = ImageStateResponse(slots: [Self.state.slots[0]])
        actions = machine.receive(Self.answer(to: read, empty.body), at: .seconds(4))
        #expect(actions.last == .finish(SMPExchangeResult(reply: .erased, attempts: 1)))
    }

    @Test("answers with another request's sequence number: the time-out names them, not a dropped request")
    func straySequence() throws {
        var (machine, request) = try Self.sent(.echo("x"))
        var actions: [SMPExchangeAction] = []
        for attempt in 1...3 {
            actions = machine.receive(
                Self.answer(to: request, .map([CBORMapEntry("r", .text("x"))]), sequence: 200), at: .zero)
            #expect(actions == [.log("ignored an answer with seq 200, not the request's")])
            actions = machine.timerFired(.response, at: .seconds(5 * attempt))
            guard attempt < 3 else { break }
            _ = machine.transportDisconnected(at: .seconds(5 * attempt))
            request = try #require(Self.frames(machine.connected(mtu: 247, at: .seconds(5 * attempt))).first)
        }
        #expect(
            actions.last
                == .fail(
                    .timedOut(
                        waitingFor: "the answer to echo (the device answered with seq 200, which belongs to another "
                            + "request; this one went out as seq 2)", limit: .seconds(5))))
    }

    @Test("cancel drops the link and fails; a connection that fails is the transport's failure")
    func cancelAndConnectFailure() throws {
        var (machine, _) = try Self.sent(.readImageState)
        #expect(machine.cancel(at: .seconds(1)).prefix(1) == [.disconnect])
        #expect(machine.cancel(at: .seconds(2)) == [])

        var connecting = SMPExchange(request: .echo("x"))
        _ = connecting.start(at: .zero)
        let failure = LinkError(.deviceNotFound, "no answer to SMP echo")
        let actions = connecting.transportFailed(failure, at: .seconds(15))
        #expect(actions.last == .fail(.transport(failure)))
        #expect(!connecting.deviceWasReached)
    }
}

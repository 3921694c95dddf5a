import Checksums
import MCUbootImage
import SMP
import SMPSimulator
import Testing

/// Lost answers to upload requests: a bounded number of re-sends, then a failure naming the request; over a console
/// link, requests shrink to what 2 console lines carry after the first loss (Zephyr's smp_svr on its shell transport
/// drops the rest of a 5-line request: `Tests/ThirdParty/zephyr-smp-svr/README.md`, findings 2 and 3).
@Suite struct SMPLostAnswerTests {
    static let image = SMPUploaderTests.image
    static let hash = SMPUploaderTests.hash

    /// The serial transport's frame budget: Zephyr's 384-byte buffer less the length field and CRC, plus 3.
    static let serialMTU = SMPSerialFraming.largestFrame(bufferSize: 384) + 3

    /// A machine past parameters (rc 8) and an empty state read, with its first upload request.
    static func uploading(mtu: Int, _ configure: (inout SMPUploadConfiguration) -> Void) -> (SMPUploader, [SMPAction]) {
        var configuration = SMPUploadConfiguration()
        configure(&configuration)
        var machine = SMPUploader(
            image: image, imageHash: hash, fileSHA256: SHA256.hash(image), configuration: configuration)
        _ = machine.start(at: .zero)
        var actions = machine.connected(mtu: mtu, at: .zero)
        let parameters = SMPUploaderTests.sentFrames(actions)[0]
        actions = machine.receive(
            SMPUploaderTests.answer(to: parameters, .map([CBORMapEntry("rc", .int(8))])), at: .zero)
        let stateRead = SMPUploaderTests.sentFrames(actions)[0]
        actions = machine.receive(SMPUploaderTests.answer(to: stateRead, ImageStateResponse(slots: []).body), at: .zero)
        return (machine, actions)
    }

    /// The response timer fires; if the machine goes on, the link drops, it reconnects, reads an empty state, and
    /// sends the upload again: the actions of all of it.
    static func loseAnswer(_ machine: inout SMPUploader, at now: Duration, mtu: Int) -> [SMPAction] {
        var actions = machine.timerFired(.response, at: now)
        guard actions.contains(.disconnect) else { return actions }
        actions += machine.transportDisconnected(at: now)
        actions += machine.connected(mtu: mtu, at: now)
        guard let stateRead = SMPUploaderTests.sentFrames(actions).last else { return actions }
        actions += machine.receive(
            SMPUploaderTests.answer(to: stateRead, ImageStateResponse(slots: []).body), at: now)
        return actions
    }

    static func logs(_ actions: [SMPAction]) -> [String] {
        actions.compactMap { if case .log(let line) = $0 { line } else { nil } }
    }

    static func uploads(_ actions: [SMPAction]) -> [SMPFrame] {
        SMPUploaderTests.sentFrames(actions).filter { $0.header.group == 1 && $0.header.command == 1 }
    }

    @Test("an upload answer lost again and again is sent 3 more times, then the update fails naming it (BLE too)")
    func boundedResends() throws {
        var (machine, actions) = Self.uploading(mtu: 247) { _ in }
        #expect(Self.uploads(actions).count == 1)
        var sends = 1
        for round in 1...3 {
            actions = Self.loseAnswer(&machine, at: .seconds(20 * round), mtu: 247)
            // The state read in between answers, but does not reset the count (it did: finding 3, 300 s of re-sends).
            #expect(
                Self.logs(actions).contains(
                    "no answer within 20.0 seconds waiting for the answer to image upload at offset 0; reconnecting to "
                        + "send it again (\(round) of 3)"), "\(Self.logs(actions))")
            let again = Self.uploads(actions)
            #expect(again.count == 1 && again.first.flatMap(SMPUploaderTests.offset) == 0)
            // Over BLE the request goes again as it was: the device's 384-byte buffer filled.
            #expect(again.first?.encoded().count == 384)
            sends += again.count
        }
        actions = machine.timerFired(.response, at: .seconds(80))
        #expect(sends == 4)
        #expect(
            actions.last
                == .fail(
                    .unanswered(
                        "image upload at offset 0", sends: 4, limit: .seconds(20),
                        remedy: "the device dropped requests of up to 384 bytes or their answers; try an SMP window "
                            + "of 1 (UpdateOptions.smpWindow) or a longer timeout (UpdateOptions.timeout)")))
        #expect(
            "\(SMPUploadError.unanswered("image upload at offset 0", sends: 4, limit: .seconds(20), remedy: "why"))"
                == "no answer to image upload at offset 0 after 4 sends, 20.0 seconds each: why")
    }

    @Test("progress resets the count: a loss at a later offset starts again from 1")
    func progressResetsCount() throws {
        var (machine, actions) = Self.uploading(mtu: 247) { $0.maximumResends = 1 }
        actions = Self.loseAnswer(&machine, at: .seconds(20), mtu: 247)
        let first = try #require(Self.uploads(actions).first)
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        actions = machine.receive(
            SMPUploaderTests.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .seconds(21))
        #expect(!Self.uploads(actions).isEmpty)
        actions = Self.loseAnswer(&machine, at: .seconds(41), mtu: 247)
        #expect(Self.logs(actions).contains { $0.hasSuffix("send it again (1 of 1)") }, "\(Self.logs(actions))")
        #expect(Self.uploads(actions).first.flatMap(SMPUploaderTests.offset) == data.count)
        actions = machine.timerFired(.response, at: .seconds(61))
        guard case .fail(.unanswered(let what, 2, _, _))? = actions.last else {
            Issue.record("expected the upload to fail after 2 sends, got \(actions)")
            return
        }
        #expect(what == "image upload at offset \(data.count)")
    }

    @Test("over a console, a lost answer shrinks requests to 2 lines, one at a time, for the rest of the session")
    func consoleShrinks() throws {
        var (machine, actions) = Self.uploading(mtu: Self.serialMTU) { $0.link = .serialConsole }
        // 380 bytes: 5 console lines.
        let big = try #require(Self.uploads(actions).first)
        #expect(big.encoded().count == 380)
        #expect(SMPSerialFraming.lines(for: big.encoded()).count == 5)
        actions = Self.loseAnswer(&machine, at: .seconds(20), mtu: Self.serialMTU)
        #expect(
            Self.logs(actions).first
                == "no answer to image upload at offset 0 (requests of up to 380 bytes, 5 console lines, 1 in "
                + "flight): the device may have had no free line buffer for the rest of them; sending requests of at "
                + "most 179 bytes (2 lines), one at a time, for the rest of the session")
        var small = try #require(Self.uploads(actions).first)
        #expect(small.encoded().count <= 179)
        #expect(SMPSerialFraming.lines(for: small.encoded()).count == 2)
        // Answers come: one request at a time, each of at most 2 lines, to the end.
        var offset = 0
        var rounds = 0
        while true {
            rounds += 1
            guard case .bytes(let data)? = small.body["data"] else { throw CancellationError() }
            offset += data.count
            actions = machine.receive(
                SMPUploaderTests.answer(to: small, .map([CBORMapEntry("off", .int(offset))])), at: .seconds(21))
            let next = Self.uploads(actions)
            guard let request = next.first else { break }
            #expect(next.count == 1)
            #expect(SMPSerialFraming.lines(for: request.encoded()).count <= 2)
            small = request
        }
        #expect(offset == Self.image.count)
        #expect(rounds > Self.image.count / 179)
    }

    @Test("a state write whose answer never comes is bounded too, though the state reads between are answered")
    func boundedStateWrites() {
        var machine = SMPUploader(
            image: Self.image, imageHash: Self.hash, fileSHA256: SHA256.hash(Self.image),
            configuration: SMPUploadConfiguration())
        _ = machine.start(at: .zero)
        var actions = machine.connected(mtu: 247, at: .zero)
        actions = machine.receive(
            SMPUploaderTests.answer(
                to: SMPUploaderTests.sentFrames(actions)[0], MCUmgrParameters(bufferSize: 384, bufferCount: 4).body),
            at: .zero)
        // The image is in slot 1 already: the machine asks for test.
        let uploaded = ImageStateResponse(slots: [
            ImageSlotState(
                slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true),
            ImageSlotState(slot: 1, version: "1.2.3", hash: Self.hash),
        ])
        var now = Duration.zero
        for round in 0...3 {
            actions = machine.receive(
                SMPUploaderTests.answer(to: SMPUploaderTests.sentFrames(actions)[0], uploaded.body), at: now)
            let write = SMPUploaderTests.sentFrames(actions)
            #expect(write.count == 1 && write[0].header.command == 0 && write[0].header.operation == .write)
            now += .seconds(20)
            actions = machine.timerFired(.response, at: now)
            if round == 3 { break }
            #expect(actions.contains(.disconnect), "\(actions)")
            actions = machine.transportDisconnected(at: now) + machine.connected(mtu: 247, at: now)
        }
        #expect(
            actions.last
                == .fail(
                    .unanswered(
                        "image state write", sends: 4, limit: .seconds(20),
                        remedy: "the device dropped the request or its answer; give a longer timeout "
                            + "(UpdateOptions.timeout)")))
    }

    @Test("an empty image list is logged as 'image state: no images', not as nothing")
    func emptyStateLog() {
        let (_, actions) = Self.uploading(mtu: 247) { _ in }
        #expect(Self.logs(actions).first == "image state: no images")
    }

    @Test("over BLE the frames do not shrink after a lost answer")
    func packetsKeepFrames() throws {
        var (machine, actions) = Self.uploading(mtu: 247) { _ in }
        actions = Self.loseAnswer(&machine, at: .seconds(20), mtu: 247)
        #expect(Self.uploads(actions).first?.encoded().count == 384)
        #expect(!Self.logs(actions).contains { $0.contains("one at a time") })
    }

    // MARK: - Against the simulated console with Zephyr's 2 line buffers

    /// The upload machine against ``SMPConsoleDevice`` with 2 RX line buffers, in virtual time: requests go out as
    /// console lines, all lines of one step at the same instant (as one write), answers come back decoded.
    struct ConsoleRun {
        var machine: SMPUploader
        var console: SMPConsoleDevice
        var now: Duration = .zero
        var logs: [String] = []
        var outcome: Result<SMPUploadResult, SMPUploadError>?

        init(link: SMPLink, timeout: Duration) {
            var configuration = SMPUploadConfiguration()
            configuration.mode = .uploadOnly
            configuration.link = link
            configuration.responseTimeout = timeout
            machine = SMPUploader(
                image: SMPLostAnswerTests.image, imageHash: SMPLostAnswerTests.hash,
                fileSHA256: SHA256.hash(SMPLostAnswerTests.image), configuration: configuration)
            let running = UnsignedImageBuilder.image(
                version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
                body: [UInt8](repeating: 0xA5, count: 4096))
            console = SMPConsoleDevice(
                device: SimulatedSMPDevice(configuration: .init(slotSize: 0x1_0000), running: running),
                lineBuffers: 2)
        }

        mutating func run() {
            var timers: [SMPTimer: Duration] = [:]
            var host = SMPSerialDecoder()
            var frames: [[UInt8]] = []
            var pending = machine.start(at: now)
            var steps = 0
            func hear(_ bytes: [UInt8]) {
                for case .frame(let frame) in host.receive(bytes) { frames.append(frame) }
            }
            while outcome == nil {
                steps += 1
                guard steps < 200_000 else {
                    Issue.record("no end after \(steps) steps")
                    return
                }
                var next: [SMPAction] = []
                for action in pending {
                    switch action {
                    case .connect:
                        // The port reopened: what the device said meanwhile is discarded, as the transport does.
                        host = SMPSerialDecoder()
                        frames = []
                        next += machine.connected(mtu: SMPLostAnswerTests.serialMTU, at: now)
                    case .send(let frame):
                        hear(console.receive(Array(SMPSerialFraming.lines(for: frame).joined()), at: now).bytes)
                    case .disconnect: next += machine.transportDisconnected(at: now)
                    case .startTimer(let timer, let deadline): timers[timer] = deadline
                    case .cancelTimer(let timer): timers[timer] = nil
                    case .log(let line): logs.append(line)
                    case .progress: break
                    case .finish(let result): outcome = .success(result)
                    case .fail(let error): outcome = .failure(error)
                    }
                }
                pending = next
                guard pending.isEmpty, outcome == nil else { continue }
                if !frames.isEmpty {
                    pending = machine.receive(frames.removeFirst(), at: now)
                    continue
                }
                let timer = timers.min { $0.value < $1.value }
                let wake = [console.nextEventTime, timer?.value].compactMap { $0 }.min() ?? now
                now = max(now, wake)
                hear(console.advance(to: now).bytes)
                if frames.isEmpty, let timer, now >= timer.value {
                    timers[timer.key] = nil
                    pending = machine.timerFired(timer.key, at: now)
                }
            }
        }
    }

    @Test("2 line buffers: the 5-line request is dropped, the requests shrink, and the image lands byte for byte")
    func shrinkingCompletesAgainstTwoLineBuffers() throws {
        var run = ConsoleRun(link: .serialConsole, timeout: .seconds(2))
        run.run()
        guard case .success(let result)? = run.outcome else {
            Issue.record("expected the upload to complete, got \(String(describing: run.outcome)): \(run.logs)")
            return
        }
        #expect(result.outcome == .uploaded)
        #expect(run.console.device.secondary.prefix(Self.image.count) == ArraySlice(Self.image))
        #expect(run.console.droppedLines == 3)
        #expect(run.logs.contains { $0.hasSuffix("one at a time, for the rest of the session") }, "\(run.logs)")
        #expect(result.requestsInFlight == 1)
        // One lost answer: 2 s of waiting, then about 20 ms of quiet per request.
        #expect(run.now < .seconds(5))
    }

    @Test("2 line buffers without shrinking: the same request is dropped 4 times, and the update fails saying so")
    func withoutShrinkingFails() throws {
        var run = ConsoleRun(link: .console(linesAfterLoss: nil), timeout: .seconds(2))
        run.run()
        guard case .failure(let error)? = run.outcome else {
            Issue.record("expected the upload to fail, got \(String(describing: run.outcome))")
            return
        }
        #expect(
            error
                == .unanswered(
                    "image upload at offset 0", sends: 4, limit: .seconds(2),
                    remedy: "the device dropped requests of up to 380 bytes (5 console lines) or their answers; check "
                        + "that the port is the device's MCUmgr console (CONFIG_MCUMGR_TRANSPORT_UART or "
                        + "CONFIG_MCUMGR_TRANSPORT_SHELL), or give a longer timeout (UpdateOptions.timeout)"))
        #expect(run.console.droppedLines == 12)
        // 4 waits of 2 s, and 20 ms of quiet before each answered request: parameters, and 4 state reads.
        #expect(run.now == .milliseconds(8100))
    }
}

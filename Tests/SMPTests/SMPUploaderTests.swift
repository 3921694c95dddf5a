import Checksums
import MCUbootImage
import SMP
import SMPSimulator
import Testing

/// The upload machine driven by hand: each test is a short script of answers, checking the requests it sends.
@Suite struct SMPUploaderTests {
    static let image = UnsignedImageBuilder.image(
        version: MCUbootVersion(major: 1, minor: 2, revision: 3, build: 0),
        body: (0..<3000).map { UInt8(truncatingIfNeeded: $0) })
    static let hash = Array(image[(image.count - 32)...])

    /// A machine past parameters (rc 8) and an empty state read, with its first upload request.
    static func uploading(_ configure: (inout SMPUploadConfiguration) -> Void = { _ in }) -> (SMPUploader, [SMPAction])
    {
        var configuration = SMPUploadConfiguration()
        configure(&configuration)
        var machine = SMPUploader(
            image: image, imageHash: hash, fileSHA256: SHA256.hash(image), configuration: configuration)
        _ = machine.start(at: .zero)
        var actions = machine.connected(mtu: 247, at: .zero)
        actions = Self.receive(
            &machine, answer(to: sentFrames(actions)[0], .map([CBORMapEntry("rc", .int(8))])), at: .zero)
        let stateRead = sentFrames(actions)[0]
        #expect(stateRead.header.group == 1 && stateRead.header.command == 0 && stateRead.header.operation == .read)
        actions = Self.receive(&machine, answer(to: stateRead, ImageStateResponse(slots: []).body), at: .zero)
        return (machine, actions)
    }

    /// Feeds `bytes` to the machine.
    ///
    /// The bootloader-mode question it asks once, after the first image state, is answered rc 8 at once, as Zephyr without `CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO` answers it: the actions
    /// returned are the ones before the question and those after its answer.
    static func receive(_ machine: inout SMPUploader, _ bytes: [UInt8], at now: Duration) -> [SMPAction] {
        let actions = machine.receive(bytes, at: now)
        guard
            let question = sentFrames(actions).first(where: { $0.header.group == 0 && $0.header.command == 8 })
        else { return actions }
        let before = actions.filter { action in
            switch action {
            case .send, .startTimer, .progress: false
            default: true
            }
        }
        return before + machine.receive(answer(to: question, .map([CBORMapEntry("rc", .int(8))])), at: now)
    }

    static func sentFrames(_ actions: [SMPAction]) -> [SMPFrame] {
        actions.compactMap { action in
            if case .send(let bytes) = action { try? SMPFrame(decoding: bytes) } else { nil }
        }
    }

    static func answer(to request: SMPFrame, _ body: CBORValue) -> [UInt8] {
        SMPFrame(
            header: SMPHeader(
                operation: request.header.operation.response, version: request.header.version, length: 0,
                group: request.header.group, sequence: request.header.sequence, command: request.header.command),
            body: body
        ).encoded(style: .indefinite)
    }

    static func offset(_ frame: SMPFrame) -> Int? { frame.body["off"]?.intValue }

    @Test("the first chunk carries len and sha and goes alone; the answer opens a window of buf_count - 1")
    func firstChunkThenWindow() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)
        #expect(first.count == 1)
        #expect(first[0].body["len"] == .int(Self.image.count))
        #expect(first[0].body["sha"] == .bytes(SHA256.hash(Self.image)))
        guard case .bytes(let data)? = first[0].body["data"] else { throw CancellationError() }
        // Zephyr's 384-byte buffer at MTU 247: two writes (244 + 140 bytes), the buffer filled.
        #expect(first[0].encoded().count == 384)
        actions = Self.receive(
            &machine, Self.answer(to: first[0], .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        let next = Self.sentFrames(actions)
        #expect(next.count == 3)
        #expect(
            next.map(Self.offset)
                == next.indices.map { index in
                    next[0...index].dropLast().reduce(data.count) { sum, frame in
                        guard case .bytes(let bytes)? = frame.body["data"] else { return sum }
                        return sum + bytes.count
                    }
                })
        #expect(next.allSatisfy { $0.body["len"] == nil && $0.body["sha"] == nil })
    }

    @Test("an offset ahead of the chunk (a resumed upload) skips there; nothing below it is sent")
    func skipsAhead() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        // The device already holds 2000 bytes of this image (same sha).
        actions = Self.receive(&machine, Self.answer(to: first, .map([CBORMapEntry("off", .int(2000))])), at: .zero)
        let next = Self.sentFrames(actions)
        #expect(next.first.flatMap(Self.offset) == 2000)
        #expect(next.compactMap(Self.offset).allSatisfy { $0 >= 2000 })
    }

    @Test("an offset behind (a lost request) rewinds once; the superseded answers do not rewind again")
    func rewindsOnce() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        actions = Self.receive(
            &machine, Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        let window = Self.sentFrames(actions)
        #expect(window.count == 3)
        // The second chunk of the window was lost: the device answers the first normally…
        let expected = try #require(Self.offset(window[1]))
        actions = Self.receive(
            &machine, Self.answer(to: window[0], .map([CBORMapEntry("off", .int(expected))])), at: .zero)
        // …and the third with the offset it still expects.
        actions = Self.receive(
            &machine, Self.answer(to: window[2], .map([CBORMapEntry("off", .int(expected))])), at: .zero)
        let resent = Self.sentFrames(actions)
        #expect(resent.first.flatMap(Self.offset) == expected)
        #expect(
            actions.contains(
                .log(
                    "device expects offset \(expected) after the chunk at \(Self.offset(window[2]) ?? 0); going on from there"
                )))
    }

    @Test("after a lost link, the upload resumes at the device's last offset")
    func resumesAfterLinkLoss() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        _ = Self.receive(&machine, Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        actions = machine.transportDisconnected(at: .seconds(1))
        #expect(actions.contains(.connect))
        actions = machine.connected(mtu: 247, at: .seconds(2))
        let stateRead = Self.sentFrames(actions)[0]
        #expect(stateRead.header.command == 0 && stateRead.header.group == 1)
        actions = Self.receive(
            &machine, Self.answer(to: stateRead, ImageStateResponse(slots: []).body), at: .seconds(2))
        let resumed = Self.sentFrames(actions)
        #expect(resumed.first.flatMap(Self.offset) == data.count)
        #expect(resumed.first?.body["sha"] == nil)
    }

    @Test("a slot already pending permanently is reset, never asked for test")
    func permanentIsNotTested() {
        var configuration = SMPUploadConfiguration()
        configuration.mode = .testAndConfirm
        var machine = SMPUploader(
            image: Self.image, imageHash: Self.hash, fileSHA256: SHA256.hash(Self.image), configuration: configuration)
        _ = machine.start(at: .zero)
        var actions = machine.connected(mtu: 247, at: .zero)
        actions = Self.receive(
            &machine,
            Self.answer(to: Self.sentFrames(actions)[0], MCUmgrParameters(bufferSize: 384, bufferCount: 4).body),
            at: .zero)
        let pending = ImageStateResponse(slots: [
            ImageSlotState(
                slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true),
            ImageSlotState(slot: 1, version: "1.2.3", hash: Self.hash, isPending: true, isPermanent: true),
        ])
        actions = Self.receive(&machine, Self.answer(to: Self.sentFrames(actions)[0], pending.body), at: .zero)
        let next = Self.sentFrames(actions)
        #expect(next.count == 1)
        #expect(next[0].header.group == 0 && next[0].header.command == 5)
    }

    @Test(
        "an offset that never advances ends the update after --retries + 1 answers, naming the offsets",
        arguments: [3, 1])
    func stuckOffset(resends: Int) throws {
        var (machine, actions) = Self.uploading { $0.maximumResends = resends }
        let first = Self.sentFrames(actions)[0]
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        actions = Self.receive(
            &machine, Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        var requests = 1
        // The device answers every chunk, and always with the same offset: the tool follows it only so far.
        while let request = Self.sentFrames(actions).first {
            requests += 1
            #expect(requests < 10, "the upload goes on without progress")
            if requests >= 10 { break }
            actions = Self.receive(
                &machine,
                Self.answer(to: request, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
            if case .fail = actions.last { break }
        }
        let offsets = Array(repeating: String(data.count), count: resends + 1).joined(separator: ", ")
        #expect(
            actions.last
                == .fail(
                    .stalled(
                        "the device answered \(resends + 1) upload requests in a row without taking a byte (offsets "
                            + "\(offsets), of \(Self.image.count) bytes)")))
        #expect(
            "\(SMPUploadError.stalled("x"))" == "upload made no progress: x")
    }

    @Test(
        "an offset that goes back to anything but 0 is a protocol violation; back to 0 restarts, a bounded number of times"
    )
    func offsetGoesBack() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        actions = Self.receive(
            &machine, Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        let window = Self.sentFrames(actions)
        let back = Self.receive(&machine, Self.answer(to: window[0], .map([CBORMapEntry("off", .int(100))])), at: .zero)
        #expect(
            back.last
                == .fail(
                    .protocolViolation(
                        "the device moved its upload offset back from \(data.count) to 100 after the chunk at "
                            + "\(data.count); only a restarted upload (offset 0) may go back")))

        // A device that starts over (offset 0) is followed: the first chunk, with len and sha, goes again; four
        // restarts in a row are one too many.
        (machine, actions) = Self.uploading()
        var restarts = 0
        while restarts < 6 {
            let chunk = Self.sentFrames(actions)[0]
            actions = Self.receive(
                &machine, Self.answer(to: chunk, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
            // The device answers the whole window with offset 0: it lost what it held.
            let window = Self.sentFrames(actions)
            actions = Self.receive(
                &machine, Self.answer(to: window[0], .map([CBORMapEntry("off", .int(0))])), at: .zero)
            restarts += 1
            if case .fail = actions.last { break }
            for chunk in window.dropFirst() {
                actions = Self.receive(
                    &machine, Self.answer(to: chunk, .map([CBORMapEntry("off", .int(0))])), at: .zero)
            }
            let again = Self.sentFrames(actions)
            #expect(again.count == 1 && Self.offset(again[0]) == 0 && again[0].body["sha"] != nil)
        }
        #expect(restarts == 4)
        #expect(
            actions.last
                == .fail(
                    .stalled(
                        "the device started the upload over (offset 0) 4 times; the last time it held \(data.count) of "
                            + "\(Self.image.count) bytes")))
    }

    @Test("a state write the device accepts but does not make is caught by the fresh read after it")
    func lyingStateWrite() throws {
        var configuration = SMPUploadConfiguration()
        configuration.mode = .test
        var machine = SMPUploader(
            image: Self.image, imageHash: Self.hash, fileSHA256: SHA256.hash(Self.image), configuration: configuration)
        _ = machine.start(at: .zero)
        var actions = machine.connected(mtu: 247, at: .zero)
        actions = Self.receive(
            &machine,
            Self.answer(to: Self.sentFrames(actions)[0], MCUmgrParameters(bufferSize: 384, bufferCount: 4).body),
            at: .zero)
        let running = ImageSlotState(
            slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true)
        let uploaded = ImageStateResponse(slots: [running, ImageSlotState(slot: 1, version: "1.2.3", hash: Self.hash)])
        actions = Self.receive(&machine, Self.answer(to: Self.sentFrames(actions)[0], uploaded.body), at: .zero)
        let write = Self.sentFrames(actions)[0]
        #expect(write.header.group == 1 && write.header.command == 0 && write.header.operation == .write)
        // The answer to the write claims the image is pending; nothing was written.
        var claimed = uploaded
        claimed.slots[1].isPending = true
        actions = Self.receive(&machine, Self.answer(to: write, claimed.body), at: .zero)
        let read = Self.sentFrames(actions)[0]
        #expect(read.header.group == 1 && read.header.command == 0 && read.header.operation == .read)
        #expect(actions.contains(.log("device accepted test; reading its state")))
        actions = Self.receive(&machine, Self.answer(to: read, uploaded.body), at: .zero)
        #expect(
            actions.last
                == .fail(
                    .unexpectedState("the device accepted test, but a fresh read of its image state shows slot 1 -")))
    }

    @Test(
        "an integer that does not fit names the field, the value and the range",
        arguments: [
            (CBORValue.unsigned(.max), "18446744073709551615"), (.negative(.max), "-18446744073709551616"),
            (.int(-1), "-1"),
        ])
    func integerOutOfRange(value: CBORValue, text: String) {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        actions = Self.receive(&machine, Self.answer(to: first, .map([CBORMapEntry("off", value)])), at: .zero)
        #expect(
            actions.last
                == .fail(
                    .protocolViolation("image upload answer: SMP field 'off' is \(text), outside 0...4294967295")))
    }

    @Test("a malformed answer is the device's protocol violation")
    func malformedAnswer() {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        actions = Self.receive(&machine, Self.answer(to: first, .map([CBORMapEntry("off", .text("x"))])), at: .zero)
        #expect(
            actions.last
                == .fail(.protocolViolation("image upload answer: SMP field 'off' is a text string, not an integer")))
    }
}

@Suite struct SMPChunkPlannerTests {
    @Test(
        "a frame fills the device's buffer unless its last write would carry less than half a packet",
        arguments: [
            (384, 247, 384),  // 244 + 140: the rest is more than half a packet
            (2475, 247, 2440),  // 10 × 244; a 35-byte 11th write is not worth it
            (384, 23, 380),  // 19 × 20 at the Linux default MTU
            (100, 247, 100),  // a buffer smaller than one packet
            (256, 185, 182),  // 74 bytes left: less than half of a 182-byte packet
        ])
    func frameLimit(bufferSize: Int, mtu: Int, expected: Int) {
        #expect(SMPChunkPlanner(bufferSize: bufferSize, mtu: mtu, imageLength: 100_000).frameLimit == expected)
    }
}

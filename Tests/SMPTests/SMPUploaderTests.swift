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
        actions = machine.receive(answer(to: sentFrames(actions)[0], .map([CBORMapEntry("rc", .int(8))])), at: .zero)
        let stateRead = sentFrames(actions)[0]
        #expect(stateRead.header.group == 1 && stateRead.header.command == 0 && stateRead.header.operation == .read)
        actions = machine.receive(answer(to: stateRead, ImageStateResponse(slots: []).body), at: .zero)
        return (machine, actions)
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
        actions = machine.receive(Self.answer(to: first[0], .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
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
        actions = machine.receive(Self.answer(to: first, .map([CBORMapEntry("off", .int(2000))])), at: .zero)
        let next = Self.sentFrames(actions)
        #expect(next.first.flatMap(Self.offset) == 2000)
        #expect(next.compactMap(Self.offset).allSatisfy { $0 >= 2000 })
    }

    @Test("an offset behind (a lost request) rewinds once; the superseded answers do not rewind again")
    func rewindsOnce() throws {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        guard case .bytes(let data)? = first.body["data"] else { throw CancellationError() }
        actions = machine.receive(Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        let window = Self.sentFrames(actions)
        #expect(window.count == 3)
        // The second chunk of the window was lost: the device answers the first normally…
        let expected = try #require(Self.offset(window[1]))
        actions = machine.receive(Self.answer(to: window[0], .map([CBORMapEntry("off", .int(expected))])), at: .zero)
        // …and the third with the offset it still expects.
        actions = machine.receive(Self.answer(to: window[2], .map([CBORMapEntry("off", .int(expected))])), at: .zero)
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
        _ = machine.receive(Self.answer(to: first, .map([CBORMapEntry("off", .int(data.count))])), at: .zero)
        actions = machine.transportDisconnected(at: .seconds(1))
        #expect(actions.contains(.connect))
        actions = machine.connected(mtu: 247, at: .seconds(2))
        let stateRead = Self.sentFrames(actions)[0]
        #expect(stateRead.header.command == 0 && stateRead.header.group == 1)
        actions = machine.receive(Self.answer(to: stateRead, ImageStateResponse(slots: []).body), at: .seconds(2))
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
        actions = machine.receive(
            Self.answer(to: Self.sentFrames(actions)[0], MCUmgrParameters(bufferSize: 384, bufferCount: 4).body),
            at: .zero)
        let pending = ImageStateResponse(slots: [
            ImageSlotState(
                slot: 0, version: "0.0.1", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true),
            ImageSlotState(slot: 1, version: "1.2.3", hash: Self.hash, isPending: true, isPermanent: true),
        ])
        actions = machine.receive(Self.answer(to: Self.sentFrames(actions)[0], pending.body), at: .zero)
        let next = Self.sentFrames(actions)
        #expect(next.count == 1)
        #expect(next[0].header.group == 0 && next[0].header.command == 5)
    }

    @Test("a malformed answer is the device's protocol violation")
    func malformedAnswer() {
        var (machine, actions) = Self.uploading()
        let first = Self.sentFrames(actions)[0]
        actions = machine.receive(Self.answer(to: first, .map([CBORMapEntry("off", .text("x"))])), at: .zero)
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

import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import Testing

/// The simulated Zephyr/MCUboot device on its own, request frame by request frame: the oracle the SMP tests upload
/// to (SMPTests, SMPTargetAdapterTests) checked against the behaviour it documents.
@Suite struct SimulatedSMPDeviceTests {
    static let running = UnsignedImageBuilder.image(
        version: MCUbootVersion(major: 1, minor: 2, revision: 3, build: 0), body: [UInt8](repeating: 0x5A, count: 1024))

    static func device() -> SimulatedSMPDevice {
        SimulatedSMPDevice(configuration: SimulatedSMPDevice.Configuration(slotSize: 0x1_0000), running: running)
    }

    static func request(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, _ body: CBORValue = .map([]),
        version: SMPVersion = .v2, sequence: UInt8 = 7
    ) -> [UInt8] {
        SMPFrame(
            header: SMPHeader(
                operation: operation, version: version, length: 0, group: group.rawValue, sequence: sequence,
                command: command),
            body: body
        ).encoded()
    }

    static func answer(_ output: SimulatedSMPDevice.Output) throws -> SMPFrame {
        try SMPFrame(decoding: try #require(output.answer))
    }

    @Test("echo answers its text, in a write response with the request's group, command and sequence")
    func echo() throws {
        var device = Self.device()
        let answer = try Self.answer(
            device.receive(Self.request(.write, group: .os, command: 0, .map([CBORMapEntry("d", .text("hello"))]))))
        #expect(answer.header.operation == .writeResponse)
        #expect(answer.header.group == SMPGroup.os.rawValue && answer.header.command == 0)
        #expect(answer.header.sequence == 7)
        #expect(answer.body["r"] == .text("hello"))
    }

    @Test("the state read lists the running image in slot 0: its version, active and confirmed")
    func stateRead() throws {
        var device = Self.device()
        let answer = try Self.answer(device.receive(Self.request(.read, group: .image, command: 0)))
        guard case .array(let images)? = answer.body["images"] else {
            Issue.record("no images array in \(answer.body)")
            return
        }
        #expect(images.count == 1)
        #expect(images.first?["slot"] == .int(0))
        #expect(images.first?["version"] == .text("1.2.3"))
        #expect(images.first?["active"] == .bool(true))
        #expect(images.first?["confirmed"] == .bool(true))
    }

    @Test("a reset is answered, then the device resets; the boot count goes up")
    func reset() {
        var device = Self.device()
        let output = device.receive(Self.request(.write, group: .os, command: 5))
        #expect(output.answer != nil && output.resetsAfterAnswer)
        #expect(device.bootCount == 1)
        device.reboot()
        #expect(device.bootCount == 2)
        #expect(device.log.contains("reset requested"))
    }

    @Test("a malformed request gets no answer; an unknown command gets rc 8 (v1) or the same in its group (v2)")
    func refusals() throws {
        var device = Self.device()
        let malformed = device.receive([1, 2, 3])
        #expect(malformed.answer == nil)
        #expect(device.log.last == "dropped a malformed request of 3 bytes")
        let unknown = try Self.answer(device.receive(Self.request(.read, group: .os, command: 99, version: .v1)))
        #expect(unknown.body["rc"] == .int(8))
    }

    @Test("a forced answer is the image command's error code, once")
    func forcedAnswer() throws {
        var device = Self.device()
        device.forceAnswer(toCommand: 0, rc: 5)
        let forced = try Self.answer(device.receive(Self.request(.read, group: .image, command: 0, version: .v1)))
        #expect(forced.body["images"] == nil)
        #expect(forced.body["rc"] != nil)
        let normal = try Self.answer(device.receive(Self.request(.read, group: .image, command: 0, version: .v1)))
        #expect(normal.body["images"] != nil)
    }

    @Test("the image builder's output parses as an unsigned MCUboot image with its version and body")
    func unsignedImage() throws {
        let image = try MCUbootImage(bytes: Self.running, file: "running.bin")
        #expect(image.header.version == MCUbootVersion(major: 1, minor: 2, revision: 3, build: 0))
        #expect(Array(image.body) == [UInt8](repeating: 0x5A, count: 1024))
        #expect(image.storedHash?.count == 32)
    }
}

/// The `--sim-fault` plan as the SMP device applies it to frames.
@Suite struct SMPFaultsTests {
    static func faults(_ texts: String...) throws -> SMPFaults {
        SMPFaults(plan: FaultPlan(faults: try texts.map { try FaultSpecification.parse($0) }))
    }

    @Test("drop-packet@N loses the Nth request only; drop- and duplicate-notification count answers")
    func counted() throws {
        var requests = try Self.faults("drop-packet@2")
        #expect([requests.dropsRequest(), requests.dropsRequest(), requests.dropsRequest()] == [false, true, false])
        var answers = try Self.faults("drop-notification@1", "duplicate-notification@2+")
        #expect([answers.answerCopies(), answers.answerCopies(), answers.answerCopies()] == [0, 2, 2])
    }

    @Test("disconnect@BYTES fires once the device has received that many bytes, and only once")
    func byteCounted() throws {
        var faults = try Self.faults("disconnect@100", "reboot@300")
        let effects = [60, 50, 100, 100, 1000].map { faults.received(bytes: $0) }
        #expect(effects == [.none, .disconnect, .none, .reboot, .none])
    }

    @Test("stall@N silences the device from its Nth request until the link drops; mtu@N caps at the lowest")
    func stallAndMTU() throws {
        var faults = try Self.faults("stall@2", "mtu@100", "mtu@64")
        #expect(faults.mtuCap == 64)
        _ = faults.dropsRequest()
        let first = faults.stallsAnswer()
        _ = faults.dropsRequest()
        let second = faults.stallsAnswer()
        let third = faults.stallsAnswer()
        faults.linkDropped()
        let afterLinkLoss = faults.stallsAnswer()
        #expect([first, second, third, afterLinkLoss] == [false, true, true, false])
        #expect(try Self.faults().mtuCap == nil)
    }
}

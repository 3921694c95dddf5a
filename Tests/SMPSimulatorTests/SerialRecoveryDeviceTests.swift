import MCUbootImage
import SMP
import SMPSimulator
import Testing

/// The simulated device in MCUboot's serial recovery (`boot_serial.c` defaults), request frame by request frame.
@Suite struct SerialRecoveryDeviceTests {
    typealias Requests = SimulatedSMPDeviceTests

    static func device() -> SimulatedSMPDevice {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: 0x1_0000)
        configuration.startsInSerialRecovery = true
        return SimulatedSMPDevice(configuration: configuration, running: Requests.running)
    }

    static let image = UnsignedImageBuilder.image(
        version: MCUbootVersion(major: 2, minor: 0, revision: 0, build: 0), body: [UInt8](repeating: 0x33, count: 2000))

    @Test("state write, erase, echo and MCUmgr parameters answer rc 8; the state read lists no flags")
    func limitedCommands() throws {
        var device = Self.device()
        for (operation, group, command) in [
            (SMPOperation.write, SMPGroup.image, UInt8(0)), (.write, .image, 5), (.write, .os, 0), (.read, .os, 6),
        ] {
            let answer = try Requests.answer(
                device.receive(Requests.request(operation, group: group, command: command)))
            #expect(answer.body == .map([CBORMapEntry("rc", .int(8))]), "\(group) \(command)")
        }
        let list = try Requests.answer(device.receive(Requests.request(.read, group: .image, command: 0)))
        let slots = try ImageStateResponse(body: list.body).slots
        #expect(slots.count == 1 && slots[0].slot == 0 && !slots[0].isActive && !slots[0].isConfirmed)
        #expect(device.isInSerialRecovery)
    }

    @Test("an upload goes to the primary slot; a reset then boots it and the application answers, active")
    func uploadToPrimaryThenBoot() throws {
        var device = Self.device()
        var offset = 0
        while offset < Self.image.count {
            let data = Array(Self.image[offset..<min(offset + 900, Self.image.count)])
            var fields = [CBORMapEntry("off", .int(offset)), CBORMapEntry("data", .bytes(data))]
            if offset == 0 { fields.append(CBORMapEntry("len", .int(Self.image.count))) }
            let answer = try Requests.answer(
                device.receive(Requests.request(.write, group: .image, command: 1, .map(fields))))
            #expect(answer.body["rc"]?.intValue == 0)
            offset = try #require(answer.body["off"]?.intValue)
        }
        #expect(Array(device.slots[0].prefix(Self.image.count)) == Self.image)
        let reset = device.receive(Requests.request(.write, group: .os, command: 5))
        #expect(reset.resetsAfterAnswer)
        device.reboot()
        #expect(!device.isInSerialRecovery)
        let list = try Requests.answer(device.receive(Requests.request(.read, group: .image, command: 0)))
        let running = try #require(try ImageStateResponse(body: list.body).slots.first)
        #expect(running.isActive && running.isConfirmed && running.version == "2.0.0")
    }

    @Test("a request longer than the 1024-byte receive buffer gets no answer")
    func oversizedRequestDropped() throws {
        var device = Self.device()
        let fields = [
            CBORMapEntry("off", .int(0)), CBORMapEntry("len", .int(2000)),
            CBORMapEntry("data", .bytes(Array(Self.image.prefix(1020)))),
        ]
        #expect(device.receive(Requests.request(.write, group: .image, command: 1, .map(fields))).answer == nil)
    }

    @Test("a reset with no valid image in the primary slot stays in serial recovery")
    func staysInRecoveryWithoutImage() throws {
        var device = Self.device()
        let fields = [
            CBORMapEntry("off", .int(0)), CBORMapEntry("len", .int(2000)),
            CBORMapEntry("data", .bytes(Array(Self.image.prefix(100)))),
        ]
        _ = device.receive(Requests.request(.write, group: .image, command: 1, .map(fields)))
        device.reboot()
        #expect(device.isInSerialRecovery)
    }
}

import DFUController
import DFUPackage
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import TestSupport
import Testing

/// A random image of `size` bytes (a multiple of 4), the same for a seed.
func randomImage(size: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(seed: seed)
    return (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
}

/// An unsigned Secure DFU init packet for an application, as nrfutil would write for an open bootloader.
func secureInitPacket(for image: [UInt8], softDevice: UInt32 = 0x101, firmwareVersion: UInt32 = 1) -> [UInt8] {
    let command = InitCommand(
        fwVersion: firmwareVersion, hwVersion: 52, sdReq: [softDevice], type: .application, sdSize: 0, blSize: 0,
        appSize: UInt32(image.count), hash: InitCommand.Hash(sha256Of: image), isDebug: false
    )
    return SecureInitPacket(initCommand: command).encoded()
}

let target = DeviceAddress(bytes: [0xC0, 0xDE, 0x00, 0x00, 0x00, 0x01])

func secureDevice(
    application: [UInt8]? = nil,
    buttonless: ButtonlessService = .none,
    faults: FaultPlan = FaultPlan()
) -> SimulatedDevice {
    var options = SecureBootloaderOptions()
    options.softDeviceFWID = 0x101
    return SimulatedDevice(
        configuration: SimulatorConfiguration(
            address: target, bootloader: .secure(options), buttonless: buttonless, installedApplication: application,
            faults: faults)
    )
}

/// Runs one update through the adapter and the simulated link; returns the outcome, the events and the transport.
func upload(
    _ parts: [DFUFirmware.Part],
    to device: SimulatedDevice,
    link: LinkModel = LinkModel(),
    configuration: DFUConfiguration = DFUConfiguration()
) async throws -> (DFUTargetAdapter<SimulatedTransport>.Outcome, [DFUSessionEvent], SimulatedTransport) {
    let transport = SimulatedTransport(device: device, link: link)
    // The address the user sees: the application's, or the bootloader's (address + 1 without bonds).
    let advertised = try #require(device.advertisement).address
    let controller = DFUController(
        firmware: try DFUFirmware(parts: parts), target: try BluetoothAddress(parsing: advertised.description),
        configuration: configuration)
    let adapter = DFUTargetAdapter(transport: transport, controller: controller)
    var events: [DFUSessionEvent] = []
    let outcome = await adapter.run { events.append($0) }
    return (outcome, events, transport)
}

@Suite struct SecureEngineTests {
    @Test("a Secure DFU of a multi-object image activates exactly the image, confirmed by CRC", arguments: [23, 247])
    func secureUpload(mtu: Int) async throws {
        let image = randomImage(size: 20_480 + 124, seed: UInt64(mtu))
        let part = try DFUFirmware.Part(imageType: .application, initPacket: secureInitPacket(for: image), image: image)
        let (outcome, events, transport) = try await upload(
            [part], to: secureDevice(), link: LinkModel(dataLength: mtu == 23 ? 27 : 251, mtu: mtu))
        #expect(
            outcome
                == .completed(
                    DFUSummary(parts: [
                        PartConfirmation(
                            imageType: .application, dfuProtocol: .secure, bytesConfirmed: image.count,
                            crc32: CRC32Reference.checksum(image),
                            evidence: .reportedChecksum(.calculateChecksum, crc32: CRC32Reference.checksum(image)))
                    ])))
        #expect(transport.device.activatedImage(.application) == image, "\(transport.device.log.suffix(25))")
        #expect(transport.device.violations.isEmpty)
        #expect(events.contains { if case .phase(let report) = $0 { report.phase == .sendingFirmware } else { false } })
    }
}

/// CRC-32 computed here, independently of the code under test.
enum CRC32Reference {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

@Suite struct LegacyEngineTests {
    @Test("a legacy DFU (SDK 11, version 0.8) activates exactly the image", arguments: [LegacyGeneration.sdk11, .v1])
    func legacyUpload(generation: LegacyGeneration) async throws {
        let image = randomImage(size: 5_000, seed: 11)
        let initPacket = LegacyInitPacket(softdeviceReq: [0xFFFE], image: image).encoded()
        let part = try DFUFirmware.Part(imageType: .application, initPacket: initPacket, image: image)
        let device = SimulatedDevice(
            configuration: SimulatorConfiguration(
                address: target, bootloader: .legacy(LegacyBootloaderOptions(generation: generation))))
        let (outcome, _, transport) = try await upload([part], to: device)
        #expect(
            outcome
                == .completed(
                    DFUSummary(parts: [
                        PartConfirmation(
                            imageType: .application, dfuProtocol: .legacy, bytesConfirmed: image.count, crc32: nil,
                            evidence: .validateResponse([0x10, 0x04, 0x01]))
                    ])))
        #expect(transport.device.activatedImage(.application) == image, "\(transport.device.log.suffix(25))")
        // Without a Version characteristic the controller first tries the SDK 6 form of Start DFU and falls back to
        // the SDK 4-5 form when the target answers "not supported", as iOS does (dfu-protocols.md §1.10).
        let expected = generation == .v1 ? ["size packet of 12 bytes, expected 4"] : []
        #expect(transport.device.violations == expected)
    }
}

@Suite struct MultiPartEngineTests {
    @Test("a SoftDevice+bootloader then application package is sent in two parts with a reconnect between them")
    func softDeviceBootloaderThenApplication() async throws {
        let softDevice = randomImage(size: 8192, seed: 1)
        let bootloader = randomImage(size: 4096, seed: 2)
        let application = randomImage(size: 6000, seed: 3)
        let options = SecureInitOptions(fwVersion: 1, hwVersion: 52, sdReq: [0x101])
        let package = try DFUPackage(
            parts: [
                try DFUPackage.Part(
                    secure: .softdeviceBootloader(softdevice: softDevice, bootloader: bootloader), options: options,
                    source: "sd_bl.hex"),
                try DFUPackage.Part(secure: .application(application), options: options, source: "app.hex"),
            ],
            name: "multi.zip")
        let parts = try package.parts.map { part in
            let type: ImageType =
                part.imageType == .application
                ? .application
                : .softDeviceAndBootloader(softDeviceSize: part.sizes.softdevice, bootloaderSize: part.sizes.bootloader)
            return try DFUFirmware.Part(imageType: type, initPacket: part.initPacketBytes, image: part.firmware)
        }
        let (outcome, events, transport) = try await upload(parts, to: secureDevice())
        guard case .completed(let summary) = outcome else {
            Issue.record("\(outcome) \(transport.device.log.suffix(10))")
            return
        }
        #expect(summary.parts.map(\.bytesConfirmed) == [softDevice.count + bootloader.count, application.count])
        #expect(transport.device.activatedImage(.application) == application)
        #expect(transport.device.violations.isEmpty)
        let connects = events.filter { if case .phase(let report) = $0 { report.phase == .connecting } else { false } }
        #expect(connects.count == 2)
    }
}

import Foundation
import NRFLoaderKit
import TestSupport
import Testing

/// The firmware model of an nRF5 DFU update: what ``Firmware`` makes of each input for the engine.
@Suite struct DFUFirmwareGenerationTests {
    static let image: [UInt8] = {
        var random = SeededGenerator(seed: 5)
        return (0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    @Test("without a chosen protocol a bare image gets Secure and legacy init packets for the same image")
    func bothVariants() throws {
        var options = FirmwareOptions()
        options.softDeviceRequirements = [0x0101]
        let (firmware, packages) = try Firmware(bytes: Self.image, name: "app.bin", options: options)
            .dfuUpdate(defaultProtocol: nil)
        let secure = try #require(firmware.parts(for: .secure))
        let legacy = try #require(firmware.parts(for: .legacy))
        #expect(secure.map(\.image) == [Self.image] && legacy.map(\.image) == [Self.image])
        #expect(secure[0].initPacket != legacy[0].initPacket)
        #expect(legacy[0].initPacket.count == 14)  // SDK 11 dfu_init_packet_t: 4 + 4 + 2 + 2 × 1 + 2
        #expect(packages.count == 2)
    }

    @Test("a chosen protocol keeps one protocol's init packet, sent to whatever bootloader is found")
    func explicitProtocol() throws {
        var options = FirmwareOptions()
        options.dfuProtocol = .legacy
        let (firmware, packages) = try Firmware(bytes: Self.image, name: "app.bin", options: options)
            .dfuUpdate(defaultProtocol: nil)
        #expect(firmware.variants.isEmpty)
        #expect(firmware.parts(for: .secure) == firmware.parts)
        #expect(packages.count == 1)
    }

    @Test("a package's parts go only to a bootloader of its protocol")
    func packageProtocol() throws {
        let directory = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages")
        for (file, isSecure) in [("nrfutil617-blinky-unsigned.zip", true), ("adafruit-blinky-dfu05.zip", false)] {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            let firmware = try Firmware(bytes: bytes, name: file).dfuFirmware(defaultProtocol: nil)
            #expect(firmware.variants.count == 1, "\(file)")
            #expect((firmware.parts(for: .secure) != nil) == isSecure, "\(file)")
            #expect((firmware.parts(for: .legacy) != nil) == !isSecure, "\(file)")
        }
    }

    @Test("an MCUboot image is the SMP firmware model: one upload named by its file, version and hash")
    func mcubootModel() throws {
        let path = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ncs/app/app_update.bin")
        let bytes = [UInt8](try Data(contentsOf: path))
        let firmware = try Firmware(bytes: bytes, name: "app_update.bin")
        #expect(firmware.isMCUboot)
        let (images, package) = try firmware.mcubootImages(for: "sim:smp")
        #expect(package == nil)
        #expect(images.map(\.image) == [0] && images.map(\.name) == ["app_update.bin"])
        #expect(images[0].bytes == bytes && images[0].hash.count == 32 && images[0].fileSHA256.count == 32)
        #expect(images[0].version == firmware.mcubootImage?.version)
    }
}

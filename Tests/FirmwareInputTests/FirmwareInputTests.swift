import DFUController
import DFUPackage
import FirmwareInput
import Foundation
import TestSupport
import Testing

@Suite struct FirmwareInputTests {
    static let image: [UInt8] = {
        var random = SeededGenerator(seed: 5)
        return (0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    @Test("without --dfu a bare image gets Secure and legacy init packets for the same image")
    func bothVariants() throws {
        var options = FirmwareInput.GenerationOptions()
        options.softdeviceRequired = [0x0101]
        let input = try FirmwareInput(binary: Self.image, name: "app.bin", options: options)
        let secure = try #require(input.firmware.parts(for: .secure))
        let legacy = try #require(input.firmware.parts(for: .legacy))
        #expect(secure.map(\.image) == [Self.image] && legacy.map(\.image) == [Self.image])
        #expect(secure[0].initPacket != legacy[0].initPacket)
        #expect(legacy[0].initPacket.count == 14)  // SDK 11 dfu_init_packet_t: 4 + 4 + 2 + 2 × 1 + 2
        #expect(input.legacyPackage != nil)
    }

    @Test("--dfu keeps one protocol's init packet, sent to whatever bootloader is found")
    func explicitProtocol() throws {
        var options = FirmwareInput.GenerationOptions()
        options.protocolFamily = .legacy
        let input = try FirmwareInput(binary: Self.image, name: "app.bin", options: options)
        #expect(input.firmware.variants.isEmpty)
        #expect(input.firmware.parts(for: .secure) == input.firmware.parts)
        #expect(input.legacyPackage == nil)
    }

    @Test("a package's parts go only to a bootloader of its protocol")
    func packageProtocol() throws {
        let directory = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages")
        for (file, dfuProtocol) in [
            ("nrfutil617-blinky-unsigned.zip", DFUProtocol.secure), ("adafruit-blinky-dfu05.zip", .legacy),
        ] {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            let input = try FirmwareInput(zip: bytes, name: file)
            #expect(Array(input.firmware.variants.keys) == [dfuProtocol], "\(file)")
        }
    }
}

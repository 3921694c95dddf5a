import Checksums
import Foundation
import TestSupport
import Testing

@testable import DFUPackage

/// The real nRF5 SDK packages in `Tests/Data/nordic-sdk`.
///
/// Expectations are copied from that folder's PROVENANCE.md, which lists each package's decoded fields and where
/// it comes from (SDK mirror, commit, blob).

/// What PROVENANCE.md says about one package (all are signed, hw_version 52, is_debug true).
struct FixtureExpectation: Sendable, CustomTestStringConvertible {
    var path: String
    var imageType: DFUPackage.ImageType
    var bin: String
    var dat: String
    var datSize: Int
    var fwVersion: UInt32
    var sdReq: [UInt32]
    var sizes: DFUPackage.ImageSizes
    var bootValidation: ValidationType?
    var binSHA256: String

    init(
        _ path: String, _ imageType: DFUPackage.ImageType, bin: String, dat: String, datSize: Int,
        fwVersion: UInt32, sdReq: [UInt32], sd: Int, bl: Int, app: Int, bootValidation: ValidationType?,
        binSHA256: String
    ) {
        self.path = path
        self.imageType = imageType
        self.bin = bin
        self.dat = dat
        self.datSize = datSize
        self.fwVersion = fwVersion
        self.sdReq = sdReq
        self.sizes = DFUPackage.ImageSizes(softdevice: sd, bootloader: bl, application: app)
        self.bootValidation = bootValidation
        self.binSHA256 = binSHA256
    }

    var testDescription: String { path }

    var firmwareType: FirmwareType {
        switch imageType {
        case .softdeviceBootloader: .softdeviceBootloader
        case .softdevice: .softdevice
        case .bootloader: .bootloader
        case .application: .application
        }
    }

    static let all: [FixtureExpectation] = [
        FixtureExpectation(
            "sdk-13.1.0/ble_dfu_send_hex/test_images_update_nrf52832/dfu_test_app_hrm_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 0, bl: 0, app: 37380, bootValidation: nil,
            binSHA256: "3309df4827197a132d23ab93d31394b556d4f2e0d54b889926a620dcaf63a6c9"
        ),
        FixtureExpectation(
            "sdk-13.1.0/ble_dfu_send_hex/test_images_update_nrf52832/dfu_test_bootloader_s132.zip",
            .bootloader, bin: "nrf52832_xxaa_s132.bin", dat: "nrf52832_xxaa_s132.dat", datSize: 138,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 0, bl: 36488, app: 0, bootValidation: nil,
            binSHA256: "6abe59006206767875cf4f92d81f5757510dedb960619a4dedb99fb4befc7968"
        ),
        FixtureExpectation(
            "sdk-13.1.0/ble_dfu_send_hex/test_images_update_nrf52840/dfu_test_app_hrm_s140.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xCAFE, 0x96], sd: 0, bl: 0, app: 37456, bootValidation: nil,
            binSHA256: "963b03dae2bf5182d0202ed09aaba7cdf839d2b8f54b5c3a8d5d13ee32e1fb61"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/ble/nrf52832/ble_app_buttonless_dfu_without_bonds_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 0, bl: 0, app: 40444, bootValidation: nil,
            binSHA256: "a63878cf89229b572364c4436ab653638827fab285569495d1053d60b093def9"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/ble/nrf52832/bootloader_secure_ble_debug_without_bonds_s132.zip",
            .bootloader, bin: "nrf52832_xxaa_s132.bin", dat: "nrf52832_xxaa_s132.dat", datSize: 138,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 0, bl: 41644, app: 0, bootValidation: nil,
            binSHA256: "644209cda635bf3d2c075014d050a361984b0d46df5bc0a40e6f4aceafd80713"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/ble/nrf52832/softdevice_bootloader_secure_ble_debug_without_bonds_s132.zip",
            .softdeviceBootloader, bin: "sd_bl.bin", dat: "sd_bl.dat", datSize: 140,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 136360, bl: 41644, app: 0, bootValidation: nil,
            binSHA256: "e5ab2da932f9fd8485eccf32da32e530c98987fd986c1a1afca18decdc22feaa"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/ble/nrf52832/softdevice_s132.zip",
            .softdevice, bin: "softdevice_s132.bin", dat: "softdevice_s132.dat", datSize: 142,
            fwVersion: 4_294_967_295, sdReq: [0x98, 0xCAFE], sd: 136360, bl: 0, app: 0, bootValidation: nil,
            binSHA256: "42b5619fd1a9d1b6e4a7acd47786527e0c03e4828639d36d990d01279cc0dcac"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/ble/nrf52840/ble_app_hrs_s140.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xCAFE, 0x96], sd: 0, bl: 0, app: 41508, bootValidation: nil,
            binSHA256: "b99f982bab5bd977083927038d525f649854a0e215c78021f90c4481293f5b68"
        ),
        FixtureExpectation(
            "sdk-14.2.0/secure_dfu_test_images/serial/nrf52832/bootloader_secure_serial_debug_without_bonds_s132.zip",
            .bootloader, bin: "nrf52832_xxaa_s132.bin", dat: "nrf52832_xxaa_s132.dat", datSize: 138,
            fwVersion: 1, sdReq: [0x98, 0xCAFE], sd: 0, bl: 36756, app: 0, bootValidation: nil,
            binSHA256: "bf8fdc88d26f6894cdd43e7f3ef5742a6f0b559350cf93bca5ee9639783431e3"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52832/hrs_application_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA8, 0xCAFE], sd: 0, bl: 0, app: 44528, bootValidation: nil,
            binSHA256: "9a4277425db25a3f3644589b3628a33f7f539d1c6a5348f6553ef4b733b08e87"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52832/ble_app_buttonless_dfu_without_bonds_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA8, 0xCAFE], sd: 0, bl: 0, app: 43264, bootValidation: nil,
            binSHA256: "45c716e5b15c775144f9fc1aa86a9332e099ff5de3a156e161191088132eb7ba"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52832/bootloader_secure_ble_debug_without_bonds_s132.zip",
            .bootloader, bin: "nrf52832_xxaa_s132.bin", dat: "nrf52832_xxaa_s132.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA8, 0xCAFE], sd: 0, bl: 47956, app: 0, bootValidation: nil,
            binSHA256: "9d6fd6a764a6026baa2dbec40b42dcfe61a05117b8ffe2ee97bf8258167731e9"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52832/softdevice_s132.zip",
            .softdevice, bin: "softdevice_s132.bin", dat: "softdevice_s132.dat", datSize: 142,
            fwVersion: 4_294_967_295, sdReq: [0xA8, 0xCAFE], sd: 145956, bl: 0, app: 0, bootValidation: nil,
            binSHA256: "18d879e120ede3b7f35370f5b0c481da1ec7a848aeb564922937e2553d033080"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52840/hrs_application_s140.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA9, 0xCAFE], sd: 0, bl: 0, app: 44432, bootValidation: nil,
            binSHA256: "87d99f7a7b8721684f50f620f86f766abeaa1278d937343873ecd7fe077e3b14"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52840/bootloader_secure_ble_debug_without_bonds_s140.zip",
            .bootloader, bin: "nrf52840_xxaa_s140.bin", dat: "nrf52840_xxaa_s140.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA9, 0xCAFE], sd: 0, bl: 48824, app: 0, bootValidation: nil,
            binSHA256: "eae00f1c9621af61031473baa40afe4b25709f78c056fa0e9097b7692c73466f"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/ble/nrf52840/softdevice_s140.zip",
            .softdevice, bin: "softdevice_s140.bin", dat: "softdevice_s140.dat", datSize: 142,
            fwVersion: 4_294_967_295, sdReq: [0xA9, 0xCAFE], sd: 148424, bl: 0, app: 0, bootValidation: nil,
            binSHA256: "c5f12dfb736733a27b09d111df07e173bf55653196bbdee0146da75feabc101c"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/uart/nrf52832/blinky_mbr.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 137,
            fwVersion: 1, sdReq: [0xA8, 0xCAFE], sd: 0, bl: 0, app: 1748, bootValidation: nil,
            binSHA256: "351578258bb9bc0cc210c8a5cef9ef761fe5ff97e5711317fb6e33d32e5d49f1"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/uart/nrf52832/bootloader_secure_uart_debug_without_bonds_mbr.zip",
            .bootloader, bin: "nrf52832_xxaa_mbr.bin", dat: "nrf52832_xxaa_mbr.dat", datSize: 138,
            fwVersion: 1, sdReq: [0xA8, 0xCAFE], sd: 0, bl: 42548, app: 0, bootValidation: nil,
            binSHA256: "6185fc04641f6e343775f3369a7712bd84e049161d8a6d89a26d881760a350a9"
        ),
        FixtureExpectation(
            "sdk-15.0.0/secure_dfu_test_images/uart/nrf52840/blinky_mbr.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 137,
            fwVersion: 1, sdReq: [0xA9, 0xCAFE], sd: 0, bl: 0, app: 1508, bootValidation: nil,
            binSHA256: "ab2aab99e7432ed4befb061da4e82573513ae254dbe348f1b2d9b84d475f3a8f"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52832/hrs_application_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x101, 0xCAFE], sd: 0, bl: 0, app: 85500, bootValidation: .validateGeneratedCRC,
            binSHA256: "77e6bb13367216f2ad3257ab8cdcb49de481a7746775dae3b0bf16e62f6b1ae6"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52832/ble_app_buttonless_dfu_without_bonds_s132.zip",
            .application, bin: "nrf52832_xxaa.bin", dat: "nrf52832_xxaa.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x101, 0xCAFE], sd: 0, bl: 0, app: 53184, bootValidation: .validateGeneratedCRC,
            binSHA256: "68b5bd21fe1667c069884f564b365c263d3d1573b097994ed8fbb29cba6f6655"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52832/bootloader_secure_ble_debug_without_bonds_s132.zip",
            .bootloader, bin: "nrf52832_xxaa_s132.bin", dat: "nrf52832_xxaa_s132.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x101, 0xCAFE], sd: 0, bl: 48856, app: 0, bootValidation: .validateGeneratedCRC,
            binSHA256: "4c65ba78ce4a20f38aa7bd55d050665a6acdff5be696928ce0668b0c82d0983d"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52832/softdevice_s132.zip",
            .softdevice, bin: "softdevice_s132.bin", dat: "softdevice_s132.dat", datSize: 148,
            fwVersion: 4_294_967_295, sdReq: [0x101, 0xCAFE], sd: 149868, bl: 0, app: 0,
            bootValidation: .validateGeneratedCRC,
            binSHA256: "620763bf79d1715c783b830f0b2e483105b8898b0406fb999772b1aff3a75dbb"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52840/hrs_application_s140.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x100, 0xCAFE], sd: 0, bl: 0, app: 98944, bootValidation: .validateGeneratedCRC,
            binSHA256: "6375973bc506fbbb5bb3af4615da2e25f4839fa1f7f74792294a7aa4bb3a273c"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52840/bootloader_secure_ble_debug_without_bonds_s140.zip",
            .bootloader, bin: "nrf52840_xxaa_s140.bin", dat: "nrf52840_xxaa_s140.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x100, 0xCAFE], sd: 0, bl: 49524, app: 0, bootValidation: .validateGeneratedCRC,
            binSHA256: "92e927a7ed56037cde692effad90ce63ecd51f94b015a1994ef96118a50c4bde"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/ble/nrf52840/softdevice_s140.zip",
            .softdevice, bin: "softdevice_s140.bin", dat: "softdevice_s140.dat", datSize: 148,
            fwVersion: 4_294_967_295, sdReq: [0x100, 0xCAFE], sd: 153140, bl: 0, app: 0,
            bootValidation: .validateGeneratedCRC,
            binSHA256: "8ab4ff1466b6a53647f0c5d81ccb7997125c44ab1885b7e3ebe41600073de335"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/uart/nrf52840/blinky_mbr.zip",
            .application, bin: "nrf52840_xxaa.bin", dat: "nrf52840_xxaa.dat", datSize: 139,
            fwVersion: 1, sdReq: [0x00], sd: 0, bl: 0, app: 1492, bootValidation: .validateGeneratedCRC,
            binSHA256: "e8c92421818817b546da4f59d8acbaa0f3391cb573ae2a843bc035808510ce42"
        ),
        FixtureExpectation(
            "sdk-17.0.2/secure_dfu_test_images/uart/nrf52840/bootloader_secure_uart_debug_without_bonds_mbr.zip",
            .bootloader, bin: "nrf52840_xxaa_mbr.bin", dat: "nrf52840_xxaa_mbr.dat", datSize: 144,
            fwVersion: 1, sdReq: [0x100, 0xCAFE], sd: 0, bl: 46020, app: 0, bootValidation: .validateGeneratedCRC,
            binSHA256: "c8ae606e8abd47323a8072c1922f76c8eca94458a404fc2b99e30810063446ef"
        ),
    ]
}

@Suite
struct NordicFixtureTests {
    @Test("every package in the fixture folder has an expectation")
    func everyZipIsListed() {
        #expect(NordicFixtures.allZips() == FixtureExpectation.all.map(\.path).sorted())
    }

    @Test("decodes a real package to the fields its README lists", arguments: FixtureExpectation.all)
    func decodesFixture(expected: FixtureExpectation) throws {
        let package = try DFUPackage(zip: try NordicFixtures.bytes(expected.path), name: expected.path)
        #expect(package.format == .secure)
        let part = try #require(package.parts.count == 1 ? package.parts.first : nil)
        #expect(part.imageType == expected.imageType)
        #expect(part.binFile == expected.bin)
        #expect(part.datFile == expected.dat)
        #expect(part.initPacketBytes.count == expected.datSize)
        #expect(hexString(SHA256.hash(part.firmware)) == expected.binSHA256)
        #expect(part.sizes == expected.sizes)

        guard case .secure(let packet) = part.initPacket else {
            Issue.record("not a secure init packet")
            return
        }
        let command = try #require(packet.command.initCommand)
        #expect(packet.command.opCode == .initialize)
        #expect(packet.signature?.type == .ecdsaP256SHA256)
        #expect(packet.signature?.bytes.count == 64)
        #expect(command.fwVersion == expected.fwVersion)
        #expect(command.hwVersion == 52)
        #expect(command.sdReq == expected.sdReq)
        #expect(command.type == expected.firmwareType)
        #expect(command.sdSize == UInt32(expected.sizes.softdevice))
        #expect(command.blSize == UInt32(expected.sizes.bootloader))
        #expect(command.appSize == UInt32(expected.sizes.application))
        #expect(command.isDebug == true)
        #expect(command.bootValidation == expected.bootValidation.map { [InitCommand.BootValidation(type: $0)] } ?? [])
        #expect(command.hash?.hashType == .sha256)
        #expect(command.hash?.hash == SHA256.hash(part.firmware).reversed())
    }

    @Test("re-encodes every real init packet byte for byte", arguments: FixtureExpectation.all)
    func reencodesFixture(expected: FixtureExpectation) throws {
        let package = try DFUPackage(zip: try NordicFixtures.bytes(expected.path), name: expected.path)
        let part = try #require(package.parts.first)
        guard case .secure(let packet) = part.initPacket else {
            Issue.record("not a secure init packet")
            return
        }
        #expect(packet.encoded() == part.initPacketBytes)
        let signed = try #require(part.signedMessage)
        #expect(packet.command.initCommand?.encoded() == signed.message)
        // The signed message is the InitCommand: found verbatim inside the .dat, after Command's `12 len` header.
        #expect(part.initPacketBytes.firstRange(of: signed.message) != nil)
        #expect(signed.signatureType == .ecdsaP256SHA256)
        #expect(signed.signature == SignedMessage.swappingHalvesByteOrder(packet.signature?.bytes ?? []))
    }
}

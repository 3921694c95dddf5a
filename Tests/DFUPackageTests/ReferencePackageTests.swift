import Checksums
import Foundation
import TestSupport
import Testing

@testable import DFUPackage

/// Packages made by Nordic's nrfutil 6.1.7 and adafruit-nrfutil 0.5.3.post16 from the example firmware.
///
/// They are committed in `Tests/Data/packages`; that folder's README.md gives each file's exact command line, tool
/// version and SHA-256, and `make.sh` there reruns the commands. The expected values below are copied from the
/// tools' output and from `sha256sum`, not computed by this project's code.
enum ReferencePackages {
    static let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// A committed image from `Resources/firmware`.
    static func firmware(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware/\(name)")))
    }

    static func allZips() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".zip") }.sorted()
    }

    /// `sha256sum` of the images in `Resources/firmware` that the packages were made from.
    static let blinkySHA256 = "e6cf7ed99e54373e79ca075d73d7ba486d38b44acb56d1393d1e53c219fa52b5"
    static let selftestSHA256 = "3d63abd6336993f16a7dc6ab005d6dd34a133ee70443f65387e828cbe0c9ffd6"
}

/// One nrfutil 6.1.7 application package.
struct SecureReference: Sendable, CustomTestStringConvertible {
    var zip: String
    var zipSHA256: String
    var image: String
    var imageSHA256: String
    var fwVersion: UInt32
    var sdReq: [UInt32]
    var isDebug: Bool
    var bootValidation: ValidationType
    var signed: Bool

    var testDescription: String { zip }

    static let all: [SecureReference] = [
        SecureReference(
            zip: "nrfutil617-blinky-signed.zip",
            zipSHA256: "45eef824d398bb781e184f082b63a52a019943c4765690bca3fcb0ce6d1e1330",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, fwVersion: 1, sdReq: [0x101],
            isDebug: false, bootValidation: .validateGeneratedCRC, signed: true),
        SecureReference(
            zip: "nrfutil617-blinky-unsigned.zip",
            zipSHA256: "55dfae4da486be9fca4b52b0d1cbfc9d94fb47433df6a29e43c534884593969a",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, fwVersion: 1, sdReq: [0x101],
            isDebug: false, bootValidation: .validateGeneratedCRC, signed: false),
        SecureReference(
            zip: "nrfutil617-blinky-sdreq2-signed.zip",
            zipSHA256: "d971845ad6f64e15726a6895a74ce7cbfa0ac1f8a84c1a0a4fc9d637197a76c6",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, fwVersion: 1,
            sdReq: [0x101, 0x124], isDebug: false, bootValidation: .validateGeneratedCRC, signed: true),
        SecureReference(
            zip: "nrfutil617-blinky-debug-signed.zip",
            zipSHA256: "40a2b1c3145371da82fe6a1e5ecb5038f881c4e39f4d9a97b309c7d91d8d18ef",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, fwVersion: 7, sdReq: [0x101],
            isDebug: true, bootValidation: .validateGeneratedCRC, signed: true),
        SecureReference(
            zip: "nrfutil617-blinky-ecdsa-boot-signed.zip",
            zipSHA256: "b0f445ea977a1720aa8bc235f7fb32095e32afcbd87a6e3dd05eb102be67667b",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, fwVersion: 1, sdReq: [0x101],
            isDebug: false, bootValidation: .validateECDSAP256SHA256, signed: true),
        SecureReference(
            zip: "nrfutil617-selftest-signed.zip",
            zipSHA256: "a11911500234b38f9b91be9201fdc1d6182e798f6bfd3a4e7890fb460e774580",
            image: "selftest-pca10040", imageSHA256: ReferencePackages.selftestSHA256, fwVersion: 2,
            sdReq: [0x101], isDebug: false, bootValidation: .validateGeneratedCRC, signed: true),
    ]
}

/// One adafruit-nrfutil 0.5.3.post16 application package (legacy DFU).
struct LegacyReference: Sendable, CustomTestStringConvertible {
    var zip: String
    var zipSHA256: String
    var image: String
    var imageSHA256: String
    var dfuVersion: Double
    var deviceType: UInt16
    var deviceRevision: UInt16
    var applicationVersion: UInt32
    var softdeviceReq: [UInt16]
    /// The image's CRC-16/CCITT-FALSE as the tool wrote it (blinky's really is 0xDEAD; Python's
    /// `binascii.crc_hqx(data, 0xFFFF)` agrees).
    var validation: LegacyInitPacket.Validation

    var testDescription: String { zip }

    static let all: [LegacyReference] = [
        LegacyReference(
            zip: "adafruit-blinky-dfu05.zip",
            zipSHA256: "237d760ac19ed35cbc98405bd43476dc2e7f40de988e21e08657cfdf491b7d2a",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, dfuVersion: 0.5,
            deviceType: 0x0052, deviceRevision: 0x0001, applicationVersion: 1, softdeviceReq: [0x0101],
            validation: .crc16(0xDEAD)),
        LegacyReference(
            zip: "adafruit-blinky-dfu06.zip",
            zipSHA256: "accdb2a4a423b495bfe14b2f55927d25cb47600767e29e6f1981298fa5acddd2",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, dfuVersion: 0.6,
            deviceType: 0x0052, deviceRevision: 0x0001, applicationVersion: 1, softdeviceReq: [0x0101],
            validation: .extendedCRC16(0xDEAD)),
        LegacyReference(
            zip: "adafruit-blinky-defaults.zip",
            zipSHA256: "707fb0c3639e9cecd043653a012b9d573d8faac7de07ad6eb01ebf8f74f0446e",
            image: "blinky-pca10040", imageSHA256: ReferencePackages.blinkySHA256, dfuVersion: 0.5,
            deviceType: 0xFFFF, deviceRevision: 0xFFFF, applicationVersion: 0xFFFF_FFFF, softdeviceReq: [0xFFFE],
            validation: .crc16(0xDEAD)),
        LegacyReference(
            zip: "adafruit-selftest-dfu05.zip",
            zipSHA256: "0e864eaa3d556a251b2d26d43530bdb2fa0c0fc33372509ce728dacd09f93f2a",
            image: "selftest-pca10040", imageSHA256: ReferencePackages.selftestSHA256, dfuVersion: 0.5,
            deviceType: 0x0052, deviceRevision: 0xABCD, applicationVersion: 0x0102_0304,
            softdeviceReq: [0x00B6, 0x0101], validation: .crc16(0x9E47)),
    ]
}

@Suite struct ReferencePackageTests {
    @Test("every package in Tests/Data/packages has an expectation")
    func everyZipIsListed() throws {
        let listed = (SecureReference.all.map(\.zip) + LegacyReference.all.map(\.zip) + [Self.multiPart]).sorted()
        #expect(try ReferencePackages.allZips() == listed)
    }

    static let multiPart = "nrfutil617-sd-bl-app-signed.zip"

    @Test("decodes nrfutil 6.1.7's SoftDevice+bootloader then application package into its two parts, in order")
    func decodesMultiPartPackage() throws {
        let zip = try ReferencePackages.bytes(Self.multiPart)
        #expect(hexString(SHA256.hash(zip)) == "591ff896df16ddf1a220c8693604f4ec75f7a880b3ab63069685c4508e92d099")
        let package = try DFUPackage(zip: zip, name: Self.multiPart)
        #expect(package.parts.map(\.imageType) == [.softdeviceBootloader, .application])
        let combined = try #require(package.parts.first)
        #expect(combined.binFile == "sd_bl.bin")
        #expect(combined.sizes == DFUPackage.ImageSizes(softdevice: 12288, bootloader: 6144))
        #expect(combined.firmware.count == 18432)
        guard case .secure(let packet) = combined.initPacket, let command = packet.command.initCommand else {
            Issue.record("not a secure init packet")
            return
        }
        #expect(command.type == .softdeviceBootloader)
        #expect(command.sdSize == 12288 && command.blSize == 6144 && command.appSize == 0)
        #expect(command.fwVersion == 2)
        #expect(command.sdReq == [0x101])
        #expect(packet.signature?.bytes.count == 64)
        let application = try #require(package.parts.last)
        #expect(application.firmware == (try ReferencePackages.firmware("blinky-pca10040.bin")))
    }

    @Test("the committed example images are the ones the packages were made from")
    func imagesMatchProvenance() throws {
        #expect(
            hexString(SHA256.hash(try ReferencePackages.firmware("blinky-pca10040.bin")))
                == ReferencePackages.blinkySHA256)
        #expect(
            hexString(SHA256.hash(try ReferencePackages.firmware("selftest-pca10040.bin")))
                == ReferencePackages.selftestSHA256)
    }

    @Test("decodes an nrfutil 6.1.7 package to the options it was made with", arguments: SecureReference.all)
    func decodesNrfutilPackage(expected: SecureReference) throws {
        let zip = try ReferencePackages.bytes(expected.zip)
        #expect(hexString(SHA256.hash(zip)) == expected.zipSHA256)
        let package = try DFUPackage(zip: zip, name: expected.zip)
        #expect(package.format == .secure)
        let part = try #require(package.parts.count == 1 ? package.parts.first : nil)
        #expect(part.imageType == .application)
        #expect(part.binFile == "\(expected.image).bin")
        #expect(part.datFile == "\(expected.image).dat")
        // nrfutil's own hex-to-bin conversion, byte for byte the image committed beside the .hex.
        #expect(part.firmware == (try ReferencePackages.firmware("\(expected.image).bin")))
        #expect(part.sizes == DFUPackage.ImageSizes(application: part.firmware.count))

        guard case .secure(let packet) = part.initPacket else {
            Issue.record("not a secure init packet")
            return
        }
        let command = try #require(packet.command.initCommand)
        #expect(packet.command.opCode == .initialize)
        #expect(command.fwVersion == expected.fwVersion)
        #expect(command.hwVersion == 52)
        #expect(command.sdReq == expected.sdReq)
        #expect(command.type == .application)
        #expect(command.sdSize == 0)
        #expect(command.blSize == 0)
        #expect(command.appSize == UInt32(part.firmware.count))
        #expect(command.isDebug == expected.isDebug)
        #expect(command.hash?.hashType == .sha256)
        #expect(command.hash.map { hexString($0.standardOrderDigest) } == expected.imageSHA256)
        #expect(command.bootValidation.map(\.type) == [expected.bootValidation])
        let validationBytes = expected.bootValidation == .validateECDSAP256SHA256 ? 64 : 0
        #expect(command.bootValidation.map(\.bytes.count) == [validationBytes])

        if expected.signed {
            #expect(packet.signature?.type == .ecdsaP256SHA256)
            #expect(packet.signature?.bytes.count == 64)
            #expect(part.initPacketBytes.first == 0x12)
            let signed = try #require(part.signedMessage)
            #expect(signed.message == command.encoded())
            #expect(signed.signature == SignedMessage.swappingHalvesByteOrder(packet.signature?.bytes ?? []))
        } else {
            #expect(packet.signature == nil)
            #expect(part.signedMessage == nil)
            #expect(part.initPacketBytes.first == 0x0A)
        }
    }

    @Test("re-encodes an nrfutil 6.1.7 init packet byte for byte", arguments: SecureReference.all)
    func reencodesNrfutilPacket(expected: SecureReference) throws {
        let package = try DFUPackage(zip: try ReferencePackages.bytes(expected.zip), name: expected.zip)
        let part = try #require(package.parts.first)
        guard case .secure(let packet) = part.initPacket else {
            Issue.record("not a secure init packet")
            return
        }
        #expect(packet.encoded() == part.initPacketBytes)
        let command = try #require(packet.command.initCommand)
        let commandBytes = command.encoded()
        #expect(part.initPacketBytes.firstRange(of: commandBytes) != nil)
        #expect(try InitCommand(decoding: commandBytes, file: expected.zip) == command)
    }

    @Test("nrfutil 6.1.7 writes the unsigned blinky init packet as these bytes")
    func unsignedGoldenBytes() throws {
        let name = "nrfutil617-blinky-unsigned.zip"
        let package = try DFUPackage(zip: try ReferencePackages.bytes(name), name: name)
        let part = try #require(package.parts.first)
        let digest = Array(bytes(hex: ReferencePackages.blinkySHA256).reversed())  // InitCommand.Hash order
        let command: [UInt8] =
            [
                0x08, 0x01,  // fw_version 1
                0x10, 0x34,  // hw_version 52
                0x1A, 0x02, 0x81, 0x02,  // sd_req packed [0x101]
                0x20, 0x00,  // type APPLICATION
                0x28, 0x00,  // sd_size 0
                0x30, 0x00,  // bl_size 0
                0x38, 0xDC, 0x04,  // app_size 604
                0x42, 0x24, 0x08, 0x03, 0x12, 0x20,  // hash { SHA256, 32 bytes }
            ] + digest
            + [
                0x48, 0x00,  // is_debug false
                0x52, 0x04, 0x08, 0x01, 0x12, 0x00,  // boot_validation { VALIDATE_GENERATED_CRC, no bytes }
            ]
        let expected: [UInt8] = [0x0A, 0x43, 0x08, 0x01, 0x12, 0x3F] + command  // Packet.command { INIT, init }
        #expect(part.initPacketBytes == expected)
    }

    @Test("a signed nrfutil 6.1.7 packet signs the same InitCommand it writes unsigned")
    func signedCoversUnsignedCommand() throws {
        func command(_ name: String) throws -> [UInt8]? {
            let package = try DFUPackage(zip: try ReferencePackages.bytes(name), name: name)
            guard case .secure(let packet) = package.parts.first?.initPacket else { return nil }
            return packet.command.initCommand?.encoded()
        }
        let signed = try DFUPackage(
            zip: try ReferencePackages.bytes("nrfutil617-blinky-signed.zip"), name: "nrfutil617-blinky-signed.zip")
        let message = try #require(signed.parts.first?.signedMessage?.message)
        #expect(message == (try command("nrfutil617-blinky-unsigned.zip")))
    }

    @Test("decodes an adafruit-nrfutil legacy package to the options it was made with", arguments: LegacyReference.all)
    func decodesAdafruitPackage(expected: LegacyReference) throws {
        let zip = try ReferencePackages.bytes(expected.zip)
        #expect(hexString(SHA256.hash(zip)) == expected.zipSHA256)
        let package = try DFUPackage(zip: zip, name: expected.zip)
        #expect(package.format == .legacy(dfuVersion: expected.dfuVersion))
        let part = try #require(package.parts.count == 1 ? package.parts.first : nil)
        #expect(part.imageType == .application)
        #expect(part.binFile == "\(expected.image).bin")
        #expect(part.datFile == "\(expected.image).dat")
        #expect(part.firmware == (try ReferencePackages.firmware("\(expected.image).bin")))
        #expect(hexString(SHA256.hash(part.firmware)) == expected.imageSHA256)
        #expect(part.sizes == DFUPackage.ImageSizes(application: part.firmware.count))
        #expect(part.signedMessage == nil)

        guard case .legacy(let packet) = part.initPacket else {
            Issue.record("not a legacy init packet")
            return
        }
        #expect(packet.deviceType == expected.deviceType)
        #expect(packet.deviceRevision == expected.deviceRevision)
        #expect(packet.applicationVersion == expected.applicationVersion)
        #expect(packet.softdeviceReq == expected.softdeviceReq)
        #expect(packet.validation == expected.validation)
        #expect(packet.encoded() == part.initPacketBytes)
        let format: LegacyInitPacket.Format = expected.dfuVersion == 0.6 ? .extendedCRC16 : .crc16
        let generated = LegacyInitPacket(
            deviceType: expected.deviceType, deviceRevision: expected.deviceRevision,
            applicationVersion: expected.applicationVersion, softdeviceReq: expected.softdeviceReq,
            image: part.firmware, format: format)
        #expect(generated.encoded() == part.initPacketBytes)
    }

    @Test("adafruit-nrfutil writes legacy init packets as these bytes")
    func legacyGoldenBytes() throws {
        func dat(_ name: String) throws -> [UInt8]? {
            try DFUPackage(zip: try ReferencePackages.bytes(name), name: name).parts.first?.initPacketBytes
        }
        let header: [UInt8] = [
            0x52, 0x00,  // device_type 0x0052
            0x01, 0x00,  // device_revision 1
            0x01, 0x00, 0x00, 0x00,  // application_version 1
            0x01, 0x00, 0x01, 0x01,  // softdevice_req [0x0101]
        ]
        #expect(try dat("adafruit-blinky-dfu05.zip") == header + [0xAD, 0xDE])  // CRC-16 0xDEAD
        #expect(try dat("adafruit-blinky-dfu06.zip") == header + [0x00, 0x00, 0x00, 0x00, 0xAD, 0xDE])  // ext id 0
        #expect(
            try dat("adafruit-selftest-dfu05.zip") == [
                0x52, 0x00, 0xCD, 0xAB, 0x04, 0x03, 0x02, 0x01,  // type, revision 0xABCD, version 0x01020304
                0x02, 0x00, 0xB6, 0x00, 0x01, 0x01,  // softdevice_req [0x00B6, 0x0101]
                0x47, 0x9E,  // CRC-16 0x9E47
            ])
    }

    /// nrfutil's `keys display` printed the same public key three ways: PEM (X and Y big-endian inside an
    /// uncompressed point), hex and the C array for `dfu_public_key.c` (X and Y each little-endian).
    @Test("the test key's C array is its PEM point with each coordinate byte-reversed")
    func publicKeyForms() throws {
        let pem = String(decoding: try ReferencePackages.bytes("nrfutil-test-key.pub.pem"), as: UTF8.self)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = Array(try #require(Data(base64Encoded: base64)))
        #expect(der.count == 91)  // SubjectPublicKeyInfo for P-256: 26-byte header, then 04 ‖ X ‖ Y
        let point = Array(der.suffix(65))
        #expect(point.first == 0x04)

        let code = String(decoding: try ReferencePackages.bytes("nrfutil-test-key.pub.c"), as: UTF8.self)
        let array = code.split(separator: "{").last?.split(separator: "}").first ?? ""
        let pk = array.split(separator: ",").compactMap {
            UInt8($0.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2), radix: 16)
        }
        #expect(pk.count == 64)
        #expect(SignedMessage.swappingHalvesByteOrder(pk) == Array(point.dropFirst()))

        let hexText = String(decoding: try ReferencePackages.bytes("nrfutil-test-key.pub.hex"), as: UTF8.self)
        #expect(hexText.split(separator: "\n").last.map(String.init) == hexString(pk))
    }
}

/// The bytes of hex text such as `sha256sum` prints; the text must have an even number of hex digits.
private func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
        UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
    }
}

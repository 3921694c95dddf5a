import Checksums
import TestSupport
import Testing

@testable import DFUPackage

/// A stand-in signer: returns a fixed 64-byte "signature" and records what it was asked to sign.
private final class RecordingSigner: InitPacketSigning, @unchecked Sendable {
    // Unchecked: each test owns its instance and uses it from one task.
    var messages: [[UInt8]] = []
    let signature = (1...64).map { UInt8($0) }

    func nordicSignature(over message: [UInt8]) -> [UInt8] {
        messages.append(message)
        return signature
    }
}

@Suite struct InitPacketGenerationTests {
    static let app = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
    static let softdevice = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 5) }
    static let bootloader = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    static let options = SecureInitOptions(fwVersion: 3, hwVersion: 52, sdReq: [0x101, 0xCAFE], isDebug: false)

    @Test("an unsigned Secure part holds nrfutil's fields and decodes back to them")
    func unsignedSecurePart() throws {
        let part = try DFUPackage.Part(secure: .application(Self.app), options: Self.options, source: "build/app.hex")
        #expect(part.imageType == .application)
        #expect(part.binFile == "app.bin")
        #expect(part.datFile == "app.dat")
        #expect(part.firmware == Self.app)
        #expect(part.sizes == DFUPackage.ImageSizes(application: 1000))
        #expect(part.signedMessage == nil)
        #expect(part.initPacketBytes.first == 0x0A)  // Packet.command: unsigned
        let expected = InitCommand(
            fwVersion: 3, hwVersion: 52, sdReq: [0x101, 0xCAFE], type: .application, sdSize: 0, blSize: 0,
            appSize: 1000,
            hash: InitCommand.Hash(hashType: .sha256, hash: SHA256.hash(Self.app).reversed()), isDebug: false)
        let decoded = try SecureInitPacket(decoding: part.initPacketBytes, file: "app.dat")
        #expect(decoded == SecureInitPacket(initCommand: expected))
        #expect(part.initPacket == .secure(decoded))
        #expect(decoded.command.opCode == .initialize)
        try expected.validate(image: Self.app, imageFile: "app.bin", initPacketFile: "app.dat")
    }

    @Test("a signed Secure part signs the InitCommand bytes and stores the signature as the signer returned it")
    func signedSecurePart() throws {
        let signer = RecordingSigner()
        let part = try DFUPackage.Part(
            secure: .application(Self.app), options: Self.options, signer: signer, source: "app.bin")
        let packet = try SecureInitPacket(decoding: part.initPacketBytes, file: "app.dat")
        let command = try #require(packet.command.initCommand)
        #expect(part.initPacketBytes.first == 0x12)  // Packet.signed_command
        #expect(signer.messages == [command.encoded()])
        #expect(packet.signature == SecureInitPacket.Signature(type: .ecdsaP256SHA256, bytes: signer.signature))
        let signed = try #require(part.signedMessage)
        #expect(try SecureInitPacket.signedMessage(in: part.initPacketBytes, file: "app.dat") == signed)
        #expect(signed.message == command.encoded())
        #expect(signed.signature == Array((1...32).reversed()) + Array((33...64).reversed()))
        // 138 bytes like the SDK 15 packages, less one: app_size 1000 is a two-byte varint where 44528 took three.
        #expect(part.initPacketBytes.count == 137)
    }

    @Test("a generated part reads back through a zip as the same part")
    func zipRoundTrip() throws {
        let signer = RecordingSigner()
        let parts = [
            try DFUPackage.Part(secure: .application(Self.app), options: Self.options, signer: signer, source: "a.hex"),
            try DFUPackage.Part(
                secure: .softdeviceBootloader(softdevice: Self.softdevice, bootloader: Self.bootloader),
                options: Self.options, signer: signer, source: "sd.hex"),
        ]
        let package = try DFUPackage(parts: parts, name: "gen.zip")
        #expect(package.parts.map(\.imageType) == [.softdeviceBootloader, .application])
        let manifest = #"""
            {"manifest": {\#(PackageBuilder.entry("application", "a")),
              \#(PackageBuilder.entry("softdevice_bootloader", "sd_bl", extra: #", "info_read_only_metadata": {"bl_size": 400, "sd_size": 600}"#))}}
            """#
        let zip = PackageBuilder.zip(
            manifest: manifest,
            files: package.parts.flatMap { [($0.binFile, $0.firmware), ($0.datFile, $0.initPacketBytes)] })
        let read = try DFUPackage(zip: zip, name: "gen.zip")
        #expect(read == package)
    }

    @Test("SoftDevice with bootloader declares both sizes and hashes the concatenation")
    func softdeviceBootloader() throws {
        let image = FirmwareImage.softdeviceBootloader(softdevice: Self.softdevice, bootloader: Self.bootloader)
        let command = try InitCommand(generatingFor: image, options: Self.options, file: "sd_bl")
        #expect(command.type == .softdeviceBootloader)
        #expect(command.sdSize == 600)
        #expect(command.blSize == 400)
        #expect(command.appSize == 0)
        #expect(command.fwVersion == 3)
        #expect(command.hash == InitCommand.Hash(sha256Of: Self.softdevice + Self.bootloader))
        let part = try DFUPackage.Part(secure: image, options: Self.options, source: "merged.hex")
        #expect(part.binFile == "sd_bl.bin")
        #expect(part.sizes == DFUPackage.ImageSizes(softdevice: 600, bootloader: 400))
        #expect(
            try FirmwareImage.softdeviceBootloader(Self.softdevice + Self.bootloader, softdeviceSize: 600, file: "x")
                == image)
    }

    @Test("a SoftDevice always gets fw_version 0xFFFFFFFF, as nrfutil writes")
    func softdeviceVersion() throws {
        let command = try InitCommand(generatingFor: .softdevice(Self.softdevice), options: Self.options, file: "sd")
        #expect(command.fwVersion == 0xFFFF_FFFF)
        #expect(command.sdSize == 600)
    }

    @Test("sd_req keeps the given order and drops repeats")
    func sdReqOrder() throws {
        var options = Self.options
        options.sdReq = [0xCAFE, 0x96, 0xCAFE]
        let command = try InitCommand(generatingFor: .application(Self.app), options: options, file: "a")
        #expect(command.sdReq == [0xCAFE, 0x96])
    }

    @Test("boot validation is written only when asked; ECDSA entries sign the regions the bootloader checks")
    func bootValidation() throws {
        let plain = try InitCommand(generatingFor: .application(Self.app), options: Self.options, file: "a")
        #expect(plain.bootValidation.isEmpty)
        #expect(!plain.encoded().contains(0x52))  // no field 10 tag

        var options = Self.options
        options.bootValidation = [.validateECDSAP256SHA256, .validateGeneratedCRC]
        let signer = RecordingSigner()
        let image = FirmwareImage.softdeviceBootloader(softdevice: Self.softdevice, bootloader: Self.bootloader)
        let command = try InitCommand(generatingFor: image, options: options, signer: signer, file: "sd_bl")
        #expect(
            command.bootValidation == [
                .init(type: .validateECDSAP256SHA256, bytes: signer.signature), .init(type: .validateGeneratedCRC),
            ])
        #expect(signer.messages == [Self.softdevice])

        options.bootValidation = [.validateECDSAP256SHA256]
        let appSigner = RecordingSigner()
        _ = try InitCommand(generatingFor: .application(Self.app), options: options, signer: appSigner, file: "a")
        #expect(appSigner.messages == [Self.app])
    }

    @Test("a legacy part carries the CRC-16 generator's packet and decodes back")
    func legacyPart() throws {
        let image = FirmwareImage.softdeviceBootloader(softdevice: Self.softdevice, bootloader: Self.bootloader)
        let part = try DFUPackage.Part(
            legacy: image, deviceType: 0x52, applicationVersion: 7, softdeviceReq: [0x81], source: "sdbl.hex")
        let decoded = try LegacyInitPacket(decoding: part.initPacketBytes, file: "sd_bl.dat")
        #expect(part.initPacket == .legacy(decoded))
        #expect(decoded.validation == .crc16(CRC16.checksum(Self.softdevice + Self.bootloader)))
        #expect(decoded.deviceType == 0x52)
        #expect(decoded.deviceRevision == 0xFFFF)
        #expect(decoded.applicationVersion == 7)
        #expect(decoded.softdeviceReq == [0x81])
        #expect(part.initPacketBytes.count == 14)
        #expect(part.sizes == DFUPackage.ImageSizes(softdevice: 600, bootloader: 400))
        let package = try DFUPackage(parts: [part], name: "legacy")
        #expect(package.format == .legacy(dfuVersion: 0.5))
    }

    @Test("pads to a whole word with erased-flash bytes", arguments: [(0, 0), (1, 3), (2, 2), (3, 1), (4, 0)])
    func padding(count: Int, added: Int) {
        let padded = FirmwareImage.paddedToWord(Array(repeating: 0, count: count))
        #expect(padded.count == count + added)
        #expect(padded.dropFirst(count).allSatisfy { $0 == 0xFF })
    }

    @Test(
        "rejects inputs no bootloader accepts",
        arguments: [
            (
                FirmwareImage.application([]), SecureInitOptions(hwVersion: 52, sdReq: [0]),
                DFUPackageError.emptyImage(file: "in", imageType: .application)
            ),
            (
                .application([1, 2, 3]), SecureInitOptions(hwVersion: 52, sdReq: [0]),
                .imageNotWordAligned(file: "in", imageType: .application, size: 3)
            ),
            (
                .softdeviceBootloader(softdevice: [1, 2], bootloader: [1, 2, 3, 4]),
                SecureInitOptions(hwVersion: 52, sdReq: [0]),
                .imageNotWordAligned(file: "in", imageType: .softdevice, size: 2)
            ),
            (
                .softdeviceBootloader(softdevice: [1, 2, 3, 4], bootloader: []),
                SecureInitOptions(hwVersion: 52, sdReq: [0]),
                .emptyImage(file: "in", imageType: .bootloader)
            ),
            (
                .bootloader([0, 0, 0, 0]), SecureInitOptions(hwVersion: 52, sdReq: []),
                .emptySoftDeviceRequirement(file: "in")
            ),
            (
                .application([0, 0, 0, 0]),
                SecureInitOptions(
                    hwVersion: 52, sdReq: [0],
                    bootValidation: [.validateSHA256, .validateSHA256, .validateSHA256, .validateSHA256]),
                .tooManyBootValidations(file: "in", count: 4, limit: 3)
            ),
            (
                .application([0, 0, 0, 0]),
                SecureInitOptions(hwVersion: 52, sdReq: [0], bootValidation: [.validateECDSAP256SHA256]),
                .bootValidationNeedsSigner(file: "in")
            ),
        ] as [(FirmwareImage, SecureInitOptions, DFUPackageError)])
    func rejectsSecureInput(image: FirmwareImage, options: SecureInitOptions, error: DFUPackageError) {
        #expect(throws: error) { try DFUPackage.Part(secure: image, options: options, source: "in") }
    }

    @Test("rejects legacy images that are empty or not whole words")
    func rejectsLegacyInput() {
        #expect(throws: DFUPackageError.imageNotWordAligned(file: "in", imageType: .bootloader, size: 5)) {
            try DFUPackage.Part(legacy: .bootloader([1, 2, 3, 4, 5]), source: "in")
        }
        #expect(throws: DFUPackageError.emptyImage(file: "in", imageType: .softdevice)) {
            try DFUPackage.Part(legacy: .softdevice([]), source: "in")
        }
    }

    @Test("refuses a signed init packet over the bootloader's 256-byte limit")
    func rejectsOversizedPacket() {
        let options = SecureInitOptions(
            hwVersion: 52, sdReq: [0],
            bootValidation: [.validateECDSAP256SHA256, .validateECDSAP256SHA256, .validateECDSAP256SHA256])
        #expect(throws: DFUPackageError.initPacketTooLarge(file: "in", size: 348, limit: 256)) {
            try DFUPackage.Part(
                secure: .application([0, 0, 0, 0]), options: options, signer: RecordingSigner(), source: "in")
        }
    }

    @Test("splitting an SD+BL image needs a size inside it")
    func rejectsBadSplit() {
        #expect(throws: DFUPackageError.imageSizeMismatch(file: "sd_bl.bin", actual: 8, declared: 8)) {
            try FirmwareImage.softdeviceBootloader(Array(repeating: 0, count: 8), softdeviceSize: 8, file: "sd_bl.bin")
        }
    }

    @Test("assembling parts rejects duplicates, mixed formats and nothing")
    func rejectsBadAssembly() throws {
        let secure = try DFUPackage.Part(secure: .application(Self.app), options: Self.options, source: "a")
        let legacy = try DFUPackage.Part(legacy: .bootloader(Self.bootloader), source: "b")
        #expect(throws: DFUPackageError.duplicatePart(package: "p", imageType: .application)) {
            try DFUPackage(parts: [secure, secure], name: "p")
        }
        #expect(throws: DFUPackageError.mixedPartFormats(package: "p")) {
            try DFUPackage(parts: [secure, legacy], name: "p")
        }
        #expect(throws: DFUPackageError.invalidManifest(archive: "p", problem: .noImages)) {
            try DFUPackage(parts: [], name: "p")
        }
    }

    @Test(
        "generation errors read as one lowercase line naming the problem and the place",
        arguments: [
            (
                DFUPackageError.emptyImage(file: "app.hex", imageType: .application),
                "app.hex: the application image is empty"
            ),
            (
                .imageNotWordAligned(file: "sd.hex", imageType: .softdevice, size: 1001),
                "sd.hex: the SoftDevice image is 1001 bytes, not a multiple of 4; pad it with 0xFF"
            ),
            (
                .imageTooLarge(file: "x.bin", size: 5_000_000_000),
                "x.bin: image is 5000000000 bytes, more than an init packet can describe"
            ),
            (
                .emptySoftDeviceRequirement(file: "app.hex"),
                "app.hex: no SoftDevice requirement given; list the FWIDs the image runs on, or 0x00 for none"
            ),
            (
                .tooManyBootValidations(file: "app.hex", count: 4, limit: 3),
                "app.hex: 4 boot validations requested; bootloaders accept at most 3"
            ),
            (
                .bootValidationNeedsSigner(file: "app.hex"),
                "app.hex: boot validation VALIDATE_ECDSA_P256_SHA256 needs a signing key"
            ),
            (
                .initPacketTooLarge(file: "app.hex", size: 355, limit: 256),
                "app.hex: generated init packet is 355 bytes; bootloaders accept at most 256"
            ),
            (
                .duplicatePart(package: "p", imageType: .softdeviceBootloader),
                "p: more than one 'softdevice_bootloader' image"
            ),
            (.mixedPartFormats(package: "p"), "p: Secure and legacy DFU images cannot share a package"),
        ] as [(DFUPackageError, String)])
    func messages(error: DFUPackageError, text: String) {
        #expect(error.description == text)
    }
}

@Suite
struct NordicRegenerationTests {
    @Test(
        "regenerating a real package's InitCommand from its fields and image gives nrfutil's bytes",
        arguments: FixtureExpectation.all)
    func regeneratesFixture(expected: FixtureExpectation) throws {
        let package = try DFUPackage(zip: try NordicFixtures.bytes(expected.path), name: expected.path)
        let part = try #require(package.parts.first)
        let signed = try #require(part.signedMessage)
        guard case .secure(let packet) = part.initPacket, let original = packet.command.initCommand else {
            Issue.record("not a secure init packet")
            return
        }
        let options = SecureInitOptions(
            fwVersion: try #require(original.fwVersion), hwVersion: try #require(original.hwVersion),
            sdReq: original.sdReq, isDebug: original.isDebug ?? false,
            bootValidation: original.bootValidation.map(\.type))
        let image: FirmwareImage =
            switch part.imageType {
            case .application: .application(part.firmware)
            case .softdevice: .softdevice(part.firmware)
            case .bootloader: .bootloader(part.firmware)
            case .softdeviceBootloader:
                try FirmwareImage.softdeviceBootloader(
                    part.firmware, softdeviceSize: part.sizes.softdevice, file: part.binFile)
            }
        let regenerated = try InitCommand(generatingFor: image, options: options, file: part.binFile)
        #expect(regenerated.encoded() == signed.message)

        // With the fixture's own signature put back, the whole .dat comes out byte for byte.
        let signer = FixedSigner(signature: try #require(packet.signature).bytes)
        let rebuilt = try DFUPackage.Part(secure: image, options: options, signer: signer, source: part.binFile)
        #expect(rebuilt.initPacketBytes == part.initPacketBytes)
        #expect(rebuilt.signedMessage == part.signedMessage)
    }
}

/// Returns a signature fixed in advance, to rebuild a package whose signature is known.
private struct FixedSigner: InitPacketSigning {
    let signature: [UInt8]

    func nordicSignature(over message: [UInt8]) -> [UInt8] { signature }
}

import Checksums
import Testing

@testable import DFUPackage

private typealias Builder = PackageBuilder

/// Numbers that cannot be true and keys no vendor tool writes: each is refused with the field (or key) named,
/// never trapped on and never skipped (issue 16, points 1 and 2).
@Suite struct ImpossibleValueTests {
    /// A legacy SoftDevice-with-bootloader package whose manifest declares `sdSize` and `blSize`.
    private static func legacySoftDeviceBootloader(sdSize: String, blSize: String) -> [UInt8] {
        let image = Builder.softdevice + Builder.bootloader
        let dat = LegacyInitPacket(image: image).encoded()
        return Builder.zip(
            manifest: #"""
                {"manifest": {"dfu_version": 0.5, "softdevice_bootloader": {"bin_file": "sd_bl.bin",
                  "dat_file": "sd_bl.dat", "sd_size": \#(sdSize), "bl_size": \#(blSize)}}}
                """#,
            files: [("sd_bl.bin", image), ("sd_bl.dat", dat)])
    }

    @Test(
        "a legacy SD+BL size that cannot be true is named with its value, even at 2^63 - 1",
        arguments: [
            ("9223372036854775807", "400", "sd_size", 9_223_372_036_854_775_807, "more than the image's 1000 bytes"),
            ("600", "9223372036854775807", "bl_size", 9_223_372_036_854_775_807, "more than the image's 1000 bytes"),
            ("-1", "400", "sd_size", -1, "not a positive size"),
            ("600", "0", "bl_size", 0, "not a positive size"),
            ("600", "-9223372036854775808", "bl_size", Int.min, "not a positive size"),
            ("1001", "400", "sd_size", 1001, "more than the image's 1000 bytes"),
        ] as [(String, String, String, Int, String)])
    func legacySizes(sdSize: String, blSize: String, key: String, value: Int, reason: String) {
        let bytes = Self.legacySoftDeviceBootloader(sdSize: sdSize, blSize: blSize)
        let problem = ManifestProblem.impossibleValue(
            path: "manifest.softdevice_bootloader.\(key)", value: value, reason: reason)
        #expect(throws: DFUPackageError.invalidManifest(archive: "p.zip", problem: problem)) {
            try DFUPackage(zip: bytes, name: "p.zip")
        }
        #expect(
            DFUPackageError.invalidManifest(archive: "p.zip", problem: problem).description
                == "p.zip: manifest.json has 'manifest.softdevice_bootloader.\(key)' = \(value), \(reason)")
    }

    @Test("legacy SD+BL sizes that each fit but do not add up are a size mismatch")
    func legacySizesNotAddingUp() {
        let bytes = Self.legacySoftDeviceBootloader(sdSize: "600", blSize: "300")
        #expect(throws: DFUPackageError.imageSizeMismatch(file: "p.zip/sd_bl.bin", actual: 1000, declared: 900)) {
            try DFUPackage(zip: bytes, name: "p.zip")
        }
    }

    @Test("a Secure SD+BL metadata size of 2^63 - 1 is named against the init packet's, not added up")
    func secureMetadataSizes() {
        let image = Builder.softdevice + Builder.bootloader
        let command = Builder.secureCommand(.softdeviceBootloader, image: image, sd: 600, bl: 400)
        let bytes = Builder.zip(
            manifest: #"""
                {"manifest": {"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                  "info_read_only_metadata": {"bl_size": 400, "sd_size": 9223372036854775807}}}}
                """#,
            files: [("sd_bl.bin", image), ("sd_bl.dat", Builder.dat(command))])
        #expect(
            throws: DFUPackageError.manifestMismatch(
                file: "a.zip/sd_bl.dat", field: "sd_size", manifestValue: "9223372036854775807", initPacketValue: "600")
        ) { try DFUPackage(zip: bytes, name: "a.zip") }
    }

    private static let manifestKeys = [
        "application", "bootloader", "dfu_version", "softdevice", "softdevice_bootloader",
    ]
    private static let imageKeys = [
        "bin_file", "bl_size", "dat_file", "info_read_only_metadata", "init_packet_data", "sd_size",
    ]

    @Test(
        "a key nrfutil and adafruit-nrfutil never write is refused, naming it and the known keys",
        arguments: [
            (#""app": {"bin_file": "app.bin", "dat_file": "app.dat"}"#, "manifest.app", manifestKeys),
            (#""softdevice_application": {"bin_file": "x.bin"}"#, "manifest.softdevice_application", manifestKeys),
            (#""application ": {"bin_file": "app.bin", "dat_file": "app.dat"}"#, "manifest.application ", manifestKeys),
        ] as [(String, String, [String])])
    func unknownPartKeys(extra: String, path: String, known: [String]) {
        let bytes = Builder.zip(
            manifest: #"{"manifest": {\#(Builder.entry("application", "app")), \#(extra)}}"#,
            files: [
                ("app.bin", Builder.app),
                ("app.dat", Builder.dat(Builder.secureCommand(.application, image: Builder.app))),
            ])
        #expect(
            throws: DFUPackageError.invalidManifest(archive: "a.zip", problem: .unknownKey(path: path, known: known))
        ) { try DFUPackage(zip: bytes, name: "a.zip") }
    }

    @Test(
        "unknown keys are refused at every level of the manifest",
        arguments: [
            (#"{"manifest": {APP}, "generator": "x"}"#, "generator", ["manifest"]),
            (
                #"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat", "comment": 1}}}"#,
                "manifest.application.comment", imageKeys
            ),
            (
                #"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat", "init_packet_data": {"crc": 1}}}}"#,
                "manifest.application.init_packet_data.crc",
                [
                    "application_version", "device_revision", "device_type", "ext_packet_id", "firmware_crc16",
                    "firmware_hash", "firmware_length", "init_packet_ecds", "softdevice_req",
                ]
            ),
        ] as [(String, String, [String])])
    func unknownKeysAtEveryLevel(manifest: String, path: String, known: [String]) {
        let bytes = Builder.zip(
            manifest: manifest.replacing("APP", with: Builder.entry("application", "app")),
            files: [
                ("app.bin", Builder.app),
                ("app.dat", Builder.dat(Builder.secureCommand(.application, image: Builder.app))),
            ])
        #expect(
            throws: DFUPackageError.invalidManifest(archive: "a.zip", problem: .unknownKey(path: path, known: known))
        ) { try DFUPackage(zip: bytes, name: "a.zip") }
    }

    @Test("an unknown key inside info_read_only_metadata is refused")
    func unknownMetadataKey() {
        let image = Builder.softdevice + Builder.bootloader
        let command = Builder.secureCommand(.softdeviceBootloader, image: image, sd: 600, bl: 400)
        let bytes = Builder.zip(
            manifest: #"""
                {"manifest": {"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                  "info_read_only_metadata": {"bl_size": 400, "sd_size": 600, "app_size": 0}}}}
                """#,
            files: [("sd_bl.bin", image), ("sd_bl.dat", Builder.dat(command))])
        let problem = ManifestProblem.unknownKey(
            path: "manifest.softdevice_bootloader.info_read_only_metadata.app_size", known: ["bl_size", "sd_size"])
        #expect(throws: DFUPackageError.invalidManifest(archive: "a.zip", problem: problem)) {
            try DFUPackage(zip: bytes, name: "a.zip")
        }
    }

    @Test("the manifests nrfutil 6.1.7 and adafruit-nrfutil write still read, with every key they use")
    func vendorKeysAccepted() throws {
        let image = Builder.softdevice + Builder.bootloader
        let crc = CRC16.checksum(image)
        let bytes = Builder.zip(
            manifest: #"""
                {"manifest": {"dfu_version": 0.5, "softdevice_bootloader": {"bin_file": "sd_bl.bin",
                  "dat_file": "sd_bl.dat", "sd_size": 600, "bl_size": 400, "init_packet_data": {
                  "application_version": 4294967295, "device_revision": 65535, "device_type": 65535,
                  "firmware_crc16": \#(crc), "softdevice_req": [65534]}}}}
                """#,
            files: [("sd_bl.bin", image), ("sd_bl.dat", LegacyInitPacket(image: image).encoded())])
        let package = try DFUPackage(zip: bytes, name: "a.zip")
        #expect(package.parts.map(\.sizes) == [DFUPackage.ImageSizes(softdevice: 600, bootloader: 400)])
    }

    // MARK: Zip fields

    private static let archive = ZipWriter.archive([ZipWriter.Entry("a.bin", Array("hello, zip".utf8))])
    private static var endOffset: Int { archive.count - 22 }
    private static var directoryOffset: Int { Int(archive.read32(at: endOffset + 16)) }

    @Test("a central directory offset past the end record is named with its value")
    func directoryOffset() {
        var bytes = Self.archive
        bytes.write32(0xFFFF_FF00, at: Self.endOffset + 16)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .endRecord, field: "central directory offset", value: 0xFFFF_FF00,
                bound: .endRecord(Self.endOffset))
        ) { try ZipArchive(bytes: bytes, name: "t.zip") }
    }

    @Test("a central directory size reaching past the end record is named with its value")
    func directorySize() {
        var bytes = Self.archive
        bytes.write32(0xFFFF_FFF0, at: Self.endOffset + 12)
        let error = DFUPackageError.fieldOutOfRange(
            archive: "t.zip", region: .endRecord, field: "central directory size", value: 0xFFFF_FFF0,
            bound: .bytesAvailable(Self.endOffset - Self.directoryOffset))
        #expect(throws: error) { try ZipArchive(bytes: bytes, name: "t.zip") }
        #expect(
            error.description
                == "t.zip: central directory size in the end-of-central-directory record is 4294967280, more than the "
                + "\(Self.endOffset - Self.directoryOffset) bytes there are")
    }

    @Test("an entry count the directory cannot hold is named with its value")
    func entryCount() {
        var bytes = Self.archive
        bytes.write16(0xFFFE, at: Self.endOffset + 8)
        bytes.write16(0xFFFE, at: Self.endOffset + 10)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .endRecord, field: "entry count", value: 0xFFFE, bound: .entriesFitting(1))
        ) { try ZipArchive(bytes: bytes, name: "t.zip") }
    }

    @Test("name, extra and comment lengths running past the directory are named with their sum")
    func recordLengths() {
        var bytes = Self.archive
        bytes.write16(0xFFFF, at: Self.directoryOffset + 30)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .centralDirectory, field: "name, extra and comment lengths",
                value: 5 + 0xFFFF, bound: .bytesAvailable(5))
        ) { try ZipArchive(bytes: bytes, name: "t.zip") }
    }

    @Test("a local header offset at or past the directory is named with its value")
    func localHeaderOffset() {
        var bytes = Self.archive
        bytes.write32(0xFFFF_FFF0, at: Self.directoryOffset + 42)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .directoryEntry(entry: "a.bin"), field: "local header offset",
                value: 0xFFFF_FFF0, bound: .directoryStart(Self.directoryOffset))
        ) { try ZipArchive(bytes: bytes, name: "t.zip") }
    }

    @Test("a compressed size running past the directory is named with its value")
    func compressedSize() {
        var bytes = Self.archive
        bytes.write32(0xFFFF_FFF0, at: Self.directoryOffset + 20)
        bytes.write32(0xFFFF_FFF0, at: Self.directoryOffset + 24)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .directoryEntry(entry: "a.bin"), field: "compressed size",
                value: 0xFFFF_FFF0, bound: .bytesAvailable(10))
        ) {
            try ZipArchive(
                bytes: bytes, name: "t.zip",
                limits: ZipArchive.Limits(maximumEntrySize: 1 << 32, maximumTotalSize: 1 << 32))
        }
    }

    // MARK: Init packet fields

    @Test("a legacy SoftDevice count longer than the init packet is named with its value")
    func legacySoftDeviceCount() {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0x66, 0x05]
        let error = DFUPackageError.invalidInitPacket(
            file: "a.dat", offset: 8, problem: .valueOutOfRange(field: "softdevice_req count", value: 0xFFFF))
        #expect(throws: error) { try LegacyInitPacket(decoding: bytes, file: "a.dat") }
        #expect(error.description == "a.dat: init packet has 'softdevice_req count' = 65535, out of range, at byte 8")
    }

    @Test("a Secure init packet length of 2^64 - 1 is a truncation, not a trap")
    func protobufLength() {
        // Field 1 (command), wire type 2, then a ten-byte varint of 2^64 - 1 as its length.
        let bytes: [UInt8] = [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        #expect(throws: DFUPackageError.invalidInitPacket(file: "a.dat", offset: 11, problem: .truncated)) {
            try SecureInitPacket(decoding: bytes, file: "a.dat")
        }
    }
}

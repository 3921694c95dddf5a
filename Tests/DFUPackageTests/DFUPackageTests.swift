import Checksums
import Testing

@testable import DFUPackage

/// Packages built in the test the way nrfutil lays them out.
enum PackageBuilder {
    static let app = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
    static let softdevice = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 5) }
    static let bootloader = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    static func secureCommand(_ type: FirmwareType, image: [UInt8], sd: Int = 0, bl: Int = 0) -> InitCommand {
        InitCommand(
            fwVersion: 1, hwVersion: 52, sdReq: [0xB6], type: type, sdSize: UInt32(sd), blSize: UInt32(bl),
            appSize: type == .application ? UInt32(image.count) : 0, hash: InitCommand.Hash(sha256Of: image),
            isDebug: false)
    }

    static func dat(_ command: InitCommand) -> [UInt8] {
        SecureInitPacket(initCommand: command).encoded()
    }

    static func entry(_ key: String, _ name: String, extra: String = "") -> String {
        #""\#(key)": {"bin_file": "\#(name).bin", "dat_file": "\#(name).dat"\#(extra)}"#
    }

    static func zip(manifest: String, files: [(String, [UInt8])], method: ZipWriter.Method = .stored) -> [UInt8] {
        ZipWriter.archive(
            [ZipWriter.Entry("manifest.json", Array(manifest.utf8), method: method)]
                + files.map { ZipWriter.Entry($0.0, $0.1, method: method) })
    }

    static func secureApp(command: InitCommand? = nil, image: [UInt8] = app, method: ZipWriter.Method = .stored)
        -> [UInt8]
    {
        zip(
            manifest: #"{"manifest": {\#(entry("application", "app"))}}"#,
            files: [("app.bin", image), ("app.dat", dat(command ?? secureCommand(.application, image: app)))],
            method: method)
    }
}

@Suite struct DFUPackageTests {
    typealias Builder = PackageBuilder

    @Test("reads a secure application package", arguments: [ZipWriter.Method.stored, .deflated])
    func readsSecureApplication(method: ZipWriter.Method) throws {
        let package = try DFUPackage(zip: Builder.secureApp(method: method), name: "app.zip")
        #expect(package.name == "app.zip")
        #expect(package.format == .secure)
        #expect(package.parts.count == 1)
        let part = try #require(package.parts.first)
        #expect(part.imageType == .application)
        #expect(part.binFile == "app.bin")
        #expect(part.datFile == "app.dat")
        #expect(part.firmware == Builder.app)
        #expect(part.initPacketBytes == Builder.dat(Builder.secureCommand(.application, image: Builder.app)))
        #expect(
            part.initPacket
                == .secure(SecureInitPacket(initCommand: Builder.secureCommand(.application, image: Builder.app))))
        #expect(part.sizes == DFUPackage.ImageSizes(application: 1000))
        #expect(part.signedMessage == nil)
    }

    @Test("orders parts as nrfutil sends them, whatever the manifest order")
    func ordersParts() throws {
        let sdbl = Builder.softdevice + Builder.bootloader
        let manifest = #"""
            {"manifest": {\#(Builder.entry("application", "app")),
              \#(Builder.entry("softdevice_bootloader", "sd_bl", extra: #", "info_read_only_metadata": {"bl_size": 400, "sd_size": 600}"#))}}
            """#
        let bytes = Builder.zip(
            manifest: manifest,
            files: [
                ("app.bin", Builder.app),
                ("app.dat", Builder.dat(Builder.secureCommand(.application, image: Builder.app))),
                ("sd_bl.bin", sdbl),
                ("sd_bl.dat", Builder.dat(Builder.secureCommand(.softdeviceBootloader, image: sdbl, sd: 600, bl: 400))),
            ])
        let package = try DFUPackage(zip: bytes, name: "multi.zip")
        #expect(package.parts.map(\.imageType) == [.softdeviceBootloader, .application])
        #expect(package.parts.first?.sizes == DFUPackage.ImageSizes(softdevice: 600, bootloader: 400))

        let separate = Builder.zip(
            manifest: #"""
                {"manifest": {\#(Builder.entry("application", "app")), \#(Builder.entry("bootloader", "bl")),
                  \#(Builder.entry("softdevice", "sd"))}}
                """#,
            files: [
                ("app.bin", Builder.app),
                ("app.dat", Builder.dat(Builder.secureCommand(.application, image: Builder.app))),
                ("bl.bin", Builder.bootloader),
                ("bl.dat", Builder.dat(Builder.secureCommand(.bootloader, image: Builder.bootloader, bl: 400))),
                ("sd.bin", Builder.softdevice),
                ("sd.dat", Builder.dat(Builder.secureCommand(.softdevice, image: Builder.softdevice, sd: 600))),
            ])
        #expect(
            try DFUPackage(zip: separate, name: "s.zip").parts.map(\.imageType) == [
                .softdevice, .bootloader, .application,
            ])
    }

    @Test("reads an adafruit-nrfutil legacy package")
    func readsLegacyPackage() throws {
        // The manifest adafruit-nrfutil 0.5.3.post16 writes for `dfu genpkg --dev-type 0x0052 --sd-req 0x00B6`.
        let crc = CRC16.checksum(Builder.app)
        let manifest = #"""
            {
                "manifest": {
                    "application": {
                        "bin_file": "app.bin",
                        "dat_file": "app.dat",
                        "init_packet_data": {
                            "application_version": 4294967295,
                            "device_revision": 65535,
                            "device_type": 82,
                            "firmware_crc16": \#(crc),
                            "softdevice_req": [
                                182
                            ]
                        }
                    },
                    "dfu_version": 0.5
                }
            }
            """#
        let packet = LegacyInitPacket(deviceType: 0x52, softdeviceReq: [0xB6], image: Builder.app)
        let bytes = Builder.zip(manifest: manifest, files: [("app.bin", Builder.app), ("app.dat", packet.encoded())])
        let package = try DFUPackage(zip: bytes, name: "legacy.zip")
        #expect(package.format == .legacy(dfuVersion: 0.5))
        #expect(package.parts.first?.initPacket == .legacy(packet))
        #expect(package.parts.first?.sizes == DFUPackage.ImageSizes(application: 1000))
    }

    @Test("reads a legacy SoftDevice with bootloader and its manifest sizes")
    func readsLegacySoftdeviceBootloader() throws {
        let image = Builder.softdevice + Builder.bootloader
        let manifest = #"""
            {"manifest": {"dfu_version": 0.5, "softdevice_bootloader": {"bin_file": "sd_bl.bin",
              "dat_file": "sd_bl.dat", "bl_size": 400, "sd_size": 600}}}
            """#
        let bytes = Builder.zip(
            manifest: manifest, files: [("sd_bl.bin", image), ("sd_bl.dat", LegacyInitPacket(image: image).encoded())])
        let package = try DFUPackage(zip: bytes, name: "sdbl.zip")
        #expect(package.parts.first?.sizes == DFUPackage.ImageSizes(softdevice: 600, bootloader: 400))
    }

    @Test(
        "rejects broken manifests",
        arguments: [
            ("not json", ManifestProblem.notJSON),
            ("[1, 2]", .notJSON),
            (#"{}"#, .missingKey(path: "manifest")),
            (#"{"other": {}}"#, .unknownKey(path: "other", known: ["manifest"])),
            (#"{"manifest": {}}"#, .noImages),
            (
                #"{"manifest": {"application": {"bin_file": "app.bin"}}}"#,
                .missingKey(path: "manifest.application.dat_file")
            ),
            (
                #"{"manifest": {"application": {"bin_file": 5, "dat_file": "app.dat"}}}"#,
                .invalidValue(path: "manifest.application.bin_file")
            ),
            (
                #"{"manifest": {"dfu_version": 0.5, "application": {"bin_file": "app.bin", "dat_file": "app.dat", "init_packet_data": {"softdevice_req": [70000]}}}}"#,
                .invalidValue(path: "manifest.application.init_packet_data.softdevice_req[0]")
            ),
            (
                #"{"manifest": {"dfu_version": 0.5, "softdevice_bootloader": {"bin_file": "app.bin", "dat_file": "app.dat", "bl_size": 1}}}"#,
                .missingKey(path: "manifest.softdevice_bootloader.sd_size")
            ),
        ] as [(String, ManifestProblem)])
    func rejectsManifests(manifest: String, problem: ManifestProblem) {
        let legacy = LegacyInitPacket(image: Builder.app).encoded()
        let bytes = Builder.zip(manifest: manifest, files: [("app.bin", Builder.app), ("app.dat", legacy)])
        #expect(throws: DFUPackageError.invalidManifest(archive: "app.zip", problem: problem)) {
            try DFUPackage(zip: bytes, name: "app.zip")
        }
    }

    @Test("rejects an archive without manifest.json")
    func rejectsMissingManifest() {
        let bytes = ZipWriter.archive([ZipWriter.Entry("app.bin", Builder.app)])
        #expect(throws: DFUPackageError.missingManifest(archive: "app.zip")) {
            try DFUPackage(zip: bytes, name: "app.zip")
        }
    }

    @Test("names a file the manifest lists but the archive lacks")
    func rejectsMissingFiles() {
        let manifest = #"{"manifest": {\#(Builder.entry("application", "app"))}}"#
        #expect(throws: DFUPackageError.missingFile(archive: "app.zip", file: "app.dat")) {
            try DFUPackage(zip: Builder.zip(manifest: manifest, files: [("app.bin", Builder.app)]), name: "app.zip")
        }
        #expect(throws: DFUPackageError.missingFile(archive: "app.zip", file: "app.bin")) {
            try DFUPackage(zip: Builder.zip(manifest: manifest, files: [("app.dat", [])]), name: "app.zip")
        }
    }

    @Test("rejects an image that does not match its init packet")
    func rejectsMismatchedImage() {
        var command = Builder.secureCommand(.application, image: Builder.app)
        command.appSize = 1004
        #expect(throws: DFUPackageError.imageSizeMismatch(file: "app.zip/app.bin", actual: 1000, declared: 1004)) {
            try DFUPackage(zip: Builder.secureApp(command: command), name: "app.zip")
        }
        let other = Array(Builder.app.reversed())
        #expect(
            throws: DFUPackageError.imageHashMismatch(
                file: "app.zip/app.bin", actual: SHA256.hash(other), declared: SHA256.hash(Builder.app))
        ) {
            try DFUPackage(zip: Builder.secureApp(image: other), name: "app.zip")
        }
    }

    @Test("rejects an init packet for another image type")
    func rejectsTypeMismatch() {
        let command = Builder.secureCommand(.bootloader, image: Builder.app, bl: 1000)
        #expect(
            throws: DFUPackageError.imageTypeMismatch(
                file: "app.zip/app.dat", manifest: .application, initPacket: .bootloader)
        ) {
            try DFUPackage(zip: Builder.secureApp(command: command), name: "app.zip")
        }
    }

    @Test("rejects a secure init packet without an init command")
    func rejectsMissingInitCommand() {
        let bytes = Builder.zip(
            manifest: #"{"manifest": {\#(Builder.entry("application", "app"))}}"#,
            files: [("app.bin", Builder.app), ("app.dat", [0x0A, 0x02, 0x08, 0x01])])
        #expect(throws: DFUPackageError.missingField(file: "app.zip/app.dat", field: "Command.init")) {
            try DFUPackage(zip: bytes, name: "app.zip")
        }
    }

    @Test("rejects manifest sizes that disagree with the init packet")
    func rejectsMetadataMismatch() {
        let image = Builder.softdevice + Builder.bootloader
        let manifest = #"""
            {"manifest": {\#(Builder.entry("softdevice_bootloader", "sd_bl", extra: #", "info_read_only_metadata": {"bl_size": 404, "sd_size": 600}"#))}}
            """#
        let bytes = Builder.zip(
            manifest: manifest,
            files: [
                ("sd_bl.bin", image),
                (
                    "sd_bl.dat",
                    Builder.dat(Builder.secureCommand(.softdeviceBootloader, image: image, sd: 600, bl: 400))
                ),
            ])
        #expect(
            throws: DFUPackageError.manifestMismatch(
                file: "sd.zip/sd_bl.dat", field: "bl_size", manifestValue: "404", initPacketValue: "400")
        ) {
            try DFUPackage(zip: bytes, name: "sd.zip")
        }
    }

    @Test("rejects legacy manifests that disagree with the .dat, and images that fail its CRC")
    func rejectsLegacyMismatches() {
        let packet = LegacyInitPacket(image: Builder.app)
        func zip(_ data: String, image: [UInt8] = Builder.app) -> [UInt8] {
            Builder.zip(
                manifest: #"""
                    {"manifest": {"dfu_version": 0.5, \#(Builder.entry("application", "app", extra: ", \"init_packet_data\": \(data)"))}}
                    """#,
                files: [("app.bin", image), ("app.dat", packet.encoded())])
        }
        #expect(
            throws: DFUPackageError.manifestMismatch(
                file: "l.zip/app.dat", field: "firmware_crc16", manifestValue: "0x0001",
                initPacketValue: hex(CRC16.checksum(Builder.app), width: 4))
        ) {
            try DFUPackage(zip: zip(#"{"firmware_crc16": 1}"#), name: "l.zip")
        }
        #expect(
            throws: DFUPackageError.manifestMismatch(
                file: "l.zip/app.dat", field: "softdevice_req", manifestValue: "[0x00B6]", initPacketValue: "[0xFFFE]")
        ) {
            try DFUPackage(zip: zip(#"{"softdevice_req": [182]}"#), name: "l.zip")
        }
        let other = Array(Builder.app.reversed())
        #expect(
            throws: DFUPackageError.imageCRC16Mismatch(
                file: "l.zip/app.bin", actual: CRC16.checksum(other), declared: CRC16.checksum(Builder.app))
        ) {
            try DFUPackage(zip: zip("{}", image: other), name: "l.zip")
        }
    }
}

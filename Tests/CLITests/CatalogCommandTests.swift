import Foundation
import TestSupport
import Testing

@Suite struct ListCommandTests {
    @Test("list prints the embedded catalog as a table on stdout")
    func table() {
        let result = nrfloader(["list"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdoutText == """
                ID                           TITLE                              VERSION  BOARD     TYPE         PROTOCOL         SIZE
                blinky-pca10028              LED blinky for nRF51 DK            1.0.0    PCA10028  application  secure,legacy     616
                blinky-pca10040              LED blinky for nRF52 DK            1.0.0    PCA10040  application  secure,legacy     604
                blinky-pca10056              LED blinky for nRF52840 DK         1.0.0    PCA10056  application  secure,legacy     640
                blinky-pca10059              LED blinky for nRF52840 Dongle     1.0.0    PCA10059  application  secure,legacy     756
                selftest-pca10040            DFU self-test for nRF52 DK         1.0.0    PCA10040  application  secure,legacy  131804
                selftest-nrf52840dk-mcuboot  MCUboot self-test for nRF52840 DK  1.0.0    PCA10056  application  smp            132496

                """
        )
    }

    @Test("list --json prints one result object with every field of every entry")
    func json() throws {
        let result = nrfloader(["list", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["event"] as? String == "result")
        #expect(object["schema"] as? Int == 1)
        let entries = try #require(object["firmware"] as? [[String: Any]])
        #expect(entries.count == 6)
        let keys: Set<String> = [
            "schema", "id", "title", "description", "version", "boards", "chip", "type", "file", "size", "sha256",
            "load_address", "softdevice", "embedded", "dfu",
        ]
        for entry in entries { #expect(Set(entry.keys) == keys) }
        let selftest = try #require(entries.first { $0["id"] as? String == "selftest-pca10040" })
        #expect(selftest["load_address"] as? Int == 0x26000)
        #expect(selftest["size"] as? Int == 131_804)
        let dfu = try #require(selftest["dfu"] as? [String: Any])
        let secure = try #require(dfu["secure"] as? [String: Any])
        #expect(secure["softdevice_required"] as? [Int] == [0x101])
        let mcuboot = try #require(entries.first { $0["id"] as? String == "selftest-nrf52840dk-mcuboot" })
        #expect((mcuboot["dfu"] as? [String: Any])?["mcuboot"] as? [String: Int] == ["image": 0])
    }

    @Test("--catalog adds a user's entries; a malformed one is reported as FILE:LINE:COLUMN with exit 65")
    func userCatalog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let image: [UInt8] = [0x00, 0x80, 0x00, 0x20, 0x09, 0x60, 0x02, 0x00]
        try FileManager.default.createDirectory(atPath: directory.file("images"), withIntermediateDirectories: true)
        try directory.write("images/mine.bin", image)
        let digest = sha256Hex(image)
        let catalog = """
            {"schema": 1, "firmware": [{"id": "mine", "title": "Mine", "description": "d", "version": "0.1",
             "boards": ["PCA10040"], "chip": "nRF52832", "type": "application", "file": "images/mine.bin",
             "size": 8, "sha256": "\(digest)", "load_address": "0x00026000",
             "dfu": {"secure": {"hardware_version": 52, "firmware_version": 1, "softdevice_required": [257]}}}]}
            """
        let path = try directory.write("mine.json", Array(catalog.utf8))
        let listed = nrfloader(["list", "--catalog", path])
        #expect(listed.status == 0)
        #expect(
            listed.stdoutText.hasSuffix(
                "mine                         Mine                               0.1      PCA10040  application  secure              8\n"
            ))
        let info = nrfloader(["info", "mine", "--catalog", path, "--json"])
        #expect(info.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any])
        #expect(object["embedded"] as? Bool == false)
        #expect(object["kind"] as? String == "catalog")

        let broken = try directory.write(
            "broken.json", Array(catalog.replacingOccurrences(of: "\"size\": 8", with: "\"size\": -8").utf8))
        let refused = nrfloader(["list", "--catalog", broken])
        #expect(refused.status == 65)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderrText == "Error: \(broken):3:10: firmware[0].size: -8 is outside 1...2147483647\n")

        let missing = nrfloader(["list", "--catalog", directory.file("none.json")])
        #expect(missing.status == 66)
        #expect(missing.stderrText == "Error: '\(directory.file("none.json"))': no such file\n")

        let replace = nrfloader(["list", "--catalog-replace"])
        #expect(replace.status == 64)
    }

    @Test("the executable copied alone to an empty folder still lists and describes the embedded images")
    func copiedAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let copy = directory.file("nrfloader")
        try ProcessRunner.copyExecutable(TestPaths.nrfloader, to: copy)
        let listed = ProcessRunner().run(copy, ["list"])
        #expect(listed.status == 0)
        #expect(listed.stdoutText.contains("selftest-pca10040"))
        let info = ProcessRunner().run(copy, ["info", "blinky-pca10056"])
        #expect(info.status == 0)
        #expect(info.stdoutText.contains("load address:  0x00027000\n"))
        #expect(try directory.contents() == ["nrfloader"])
    }
}

@Suite struct InfoCommandTests {
    private static let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path

    @Test("info on a catalog id prints its metadata and vector table")
    func catalogID() {
        let result = nrfloader(["info", "blinky-pca10040"])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("id:            blinky-pca10040\ntitle:         LED blinky for nRF52 DK\n"))
        #expect(
            result.stdoutText.contains("\nsecure DFU:    hardware version 52, firmware version 1, SoftDevices 0x0101\n")
        )
        #expect(result.stdoutText.hasSuffix("initial SP:    0x20008000\nreset handler: 0x0002611D\n"))
    }

    @Test("info on a .hex gives regions, start address and the DFU image")
    func hexFile() throws {
        let path = "\(Self.firmware)/blinky-pca10056.hex"
        let result = nrfloader(["info", path, "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["kind"] as? String == "hex")
        let image = try #require(object["image"] as? [String: Any])
        #expect(image["base_address"] as? Int == 0x27000)
        #expect(image["size"] as? Int == 640)
        #expect(image["sha256"] as? String == "6fd95b5b5868e6ee0dec597aff8108378718c4769c5ff313234d77674a512b5f")
        let human = nrfloader(["info", path])
        #expect(human.stdoutText.contains("regions:       0x00027000–0x0002727F (640 bytes)\n"))
    }

    @Test("info on a .bin gives size, SHA-256 and the vector table")
    func binFile() {
        let result = nrfloader(["info", "\(Self.firmware)/selftest-pca10040.bin"])
        #expect(result.status == 0)
        #expect(
            result.stdoutText == """
                file:          \(Self.firmware)/selftest-pca10040.bin
                format:        binary
                size:          131804 bytes
                sha256:        3d63abd6336993f16a7dc6ab005d6dd34a133ee70443f65387e828cbe0c9ffd6
                initial SP:    0x20008000
                reset handler: 0x0002611D

                """
        )
    }

    @Test("info on something that is neither a file nor an id exits 66 and lists the ids")
    func unknown() {
        let result = nrfloader(["info", "blinky"])
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText == "Error: 'blinky' is neither a file nor a catalog id (ids: blinky-pca10028, "
                + "blinky-pca10040, blinky-pca10056, blinky-pca10059, selftest-pca10040, selftest-nrf52840dk-mcuboot)\n"
        )
    }
}

@Suite struct PackageInfoTests {
    private static let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path

    @Test("info on a Secure package decodes its init packet and verifies its signature")
    func securePackage() {
        let result = nrfloader([
            "info", "\(Self.packages)/nrfutil617-blinky-signed.zip", "--verify-key",
            "\(Self.packages)/nrfutil-test-key.pub.pem",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdoutText == """
                file:         \(Self.packages)/nrfutil617-blinky-signed.zip
                format:       Secure DFU (nrfutil package)
                part:         application: blinky-pca10040.bin (604 bytes), blinky-pca10040.dat (140 bytes)
                  fw_version: 1
                  hw_version: 52
                  sd_req:     0x0101
                  type:       APPLICATION
                  sizes:      sd 0, bl 0, app 604
                  hash:       SHA256 e6cf7ed99e54373e79ca075d73d7ba486d38b44acb56d1393d1e53c219fa52b5
                  is_debug:   false
                  signature:  valid

                """)
    }

    @Test("info --json keeps each part's type apart from its init packet's fw_type")
    func partTypeAndInitPacketType() throws {
        let result = nrfloader(["info", "\(Self.packages)/nrfutil617-sd-bl-app-signed.zip", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let parts = try #require(object["parts"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["softdevice_bootloader", "application"])
        #expect(parts.map { $0["fw_type"] as? String } == ["SOFTDEVICE_BOOTLOADER", "APPLICATION"])
    }

    @Test("a signature that does not verify with --verify-key exits 65 after the description")
    func wrongKey() {
        let key = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/keys/test-public-key.pem").path
        let result = nrfloader(["info", "\(Self.packages)/nrfutil617-blinky-signed.zip", "--verify-key", key])
        #expect(result.status == 65)
        #expect(result.stdoutText.contains("  signature:  invalid\n"))
        #expect(result.stderrText.hasPrefix("Error: "))
        // With --json the description is the result of a command that failed: only the error object is printed.
        let json = nrfloader(["info", "\(Self.packages)/nrfutil617-blinky-signed.zip", "--verify-key", key, "--json"])
        #expect(json.status == 65)
        #expect(json.stdoutText.hasPrefix(#"{"event":"error","exit_status":65,"#))
        #expect(json.stdoutText.split(separator: "\n").count == 1)
    }

    @Test("info on a legacy package shows its init packet fields")
    func legacyPackage() {
        let result = nrfloader(["info", "\(Self.packages)/adafruit-blinky-dfu05.zip"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("format:                legacy DFU (dfu_version 0.5)\n"))
        #expect(result.stdoutText.contains("  validation:          CRC-16 0xDEAD\n"))
        #expect(result.stdoutText.contains("  signature:           unsigned\n"))
    }
}

import Foundation
import MCUbootImage
import MCUbootPackage
import TestSupport
import Testing

/// Reading nRF Connect SDK `dfu_application.zip` packages that sdk-nrf's own generate_zip.py made
/// (`Tests/Data/mcuboot/ncs/README.md`).
@Suite struct MCUbootPackageTests {
    static let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ncs")

    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    @Test("reads generate_zip.py's manifest (strings for image_index and slots) and checks both images")
    func readsTwoImagePackage() throws {
        let package = try MCUbootPackage(zip: try Self.file("dfu_application.zip"), archive: "dfu_application.zip")
        #expect(package.formatVersion == 0)
        #expect(package.name == "nrf5340-two-cores")
        #expect(package.images.map(\.file) == ["app_update.bin", "net_core_app_update.bin"])
        #expect(package.images.map(\.imageIndex) == [0, 1])
        let app = package.images[0]
        #expect(app.slotIndexPrimary == 1 && app.slotIndexSecondary == 2)
        #expect(app.loadAddress == 0x10200 && app.version == "2.1.0+7")
        #expect(app.board == "nrf5340dk_nrf5340_cpuapp" && app.soc == "nRF5340_CPUAPP" && app.type == "application")
        let net = package.images[1]
        #expect(net.slotIndexPrimary == 3 && net.slotIndexSecondary == 4)
        #expect(net.loadAddress == 0x0100_8800 && net.version == "3")
        #expect(net.board == "nrf5340dk_nrf5340_cpunet" && net.soc == "nRF5340_CPUNET")
        // Each image is the file imgtool signed, byte for byte.
        #expect(app.image.bytes == (try Self.file("app/app_update.bin")))
        #expect(net.image.bytes == (try Self.file("net/net_core_app_update.bin")))
        #expect(net.image.header.version == MCUbootVersion(major: 1, minor: 4, revision: 0, build: 0))
        #expect(net.image.file == "dfu_application.zip/net_core_app_update.bin")
        #expect(MCUbootPackage.isPackage(try Self.file("dfu_application.zip")))
    }

    @Test("--verify-key applies to every image: the other key fails on the first image, named by archive/entry")
    func verifiesEachImage() throws {
        let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot")
        let pem = try String(contentsOf: mcuboot.appendingPathComponent("ecdsa-p256.pub.pem"), encoding: .utf8)
        let key = try MCUbootVerificationKey(pem: pem, file: "ecdsa-p256.pub.pem")
        var checked: [String] = []
        _ = try MCUbootPackage(zip: try Self.file("dfu_application.zip"), archive: "a.zip") {
            (image) throws(MCUbootImageError) in
            try key.verify(image)
            checked.append(image.file)
        }
        #expect(checked == ["a.zip/app_update.bin", "a.zip/net_core_app_update.bin"])
        let other = try String(contentsOf: mcuboot.appendingPathComponent("ecdsa-p256-other.pem"), encoding: .utf8)
        let otherKey = try MCUbootVerificationKey(pem: other, file: "ecdsa-p256-other.pem")
        #expect(throws: MCUbootPackageError.self) {
            _ = try MCUbootPackage(zip: try Self.file("dfu_application.zip"), archive: "a.zip") {
                (image) throws(MCUbootImageError) in try otherKey.verify(image)
            }
        }
    }

    @Test(
        "a broken package is one message naming the archive and the place",
        arguments: [
            ("no-manifest.zip", "no-manifest.zip: no manifest.json; not an nRF Connect SDK dfu_application.zip"),
            (
                "missing-file.zip",
                "missing-file.zip: manifest.json files[1].file names 'net_core_app_update.bin', which the archive "
                    + "does not hold"
            ),
            (
                "hash-mismatch.zip",
                "hash-mismatch.zip/net_core_app_update.bin: SHA256 TLV is "
                    + "839bbe3f2c6f93dc91fc7479b3e0f1310486d3887714dda6b48800dcd7c97010 but header, body and "
                    + "protected TLVs hash to "
            ),
        ])
    func brokenPackages(file: String, message: String) throws {
        do {
            _ = try MCUbootPackage(zip: try Self.file(file), archive: file)
            Issue.record("\(file) was accepted")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
            #expect(!"\(error)".contains("\n"))
        }
    }

    @Test("an nrfutil package is not taken for an NCS one")
    func nrfutilPackage() throws {
        let first = "nrfutil617-selftest-signed.zip"
        let nordic = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages")
        let bytes = Array(try Data(contentsOf: nordic.appendingPathComponent(first)))
        #expect(!MCUbootPackage.isPackage(bytes))
        #expect(throws: MCUbootPackageError.nrfutilPackage(archive: first)) {
            _ = try MCUbootPackage(zip: bytes, archive: first)
        }
    }
}

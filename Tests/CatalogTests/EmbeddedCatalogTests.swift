import Catalog
import Foundation
import HexConverter
import TestSupport
import Testing

@Suite struct EmbeddedCatalogTests {
    private static let root = TestPaths.repositoryRoot

    private static func disk(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    @Test("every embedded file equals the file on disk, and every firmware binary is embedded")
    func embeddedMatchesDisk() throws {
        let firmware = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Resources/firmware").path
        ).filter { $0.hasSuffix(".bin") }.map { "Resources/firmware/" + $0 }
        #expect(Set(EmbeddedFiles.all.keys) == Set(firmware + ["catalog.json"]))
        for (path, bytes) in EmbeddedFiles.all {
            #expect(bytes == (try Self.disk(path)), "embedded \(path) differs from disk: rebuild")
        }
    }

    @Test("the embedded catalog loads, and each entry matches its committed files")
    func entriesMatchFiles() throws {
        let catalog = try FirmwareCatalog.embedded()
        #expect(catalog.entries.count == 6)
        #expect(catalog.entries.allSatisfy { $0.isEmbedded })
        for entry in catalog.entries {
            #expect(entry.image == (try Self.disk(entry.file)))
            #expect(entry.image.count == entry.size)
            if entry.mcuboot != nil {
                // A signed MCUboot image: a 0x200-byte header at the slot's start, then the vector table.
                #expect(entry.image.starts(with: [0x3D, 0xB8, 0xF3, 0x96]))
                #expect(
                    ARMVectorTable(image: Array(entry.image.dropFirst(0x200)), loadAddress: entry.loadAddress + 0x200)
                        != nil)
                continue
            }
            // The .hex beside each .bin converts (as Nordic's tools do) to exactly that .bin, at the load address.
            let hexPath = String(entry.file.dropLast(4)) + ".hex"
            let image = try IntelHexParser.parse(try Self.disk(hexPath), source: hexPath, window: .nordic)
            #expect(image.lowestAddress == entry.loadAddress)
            #expect(image.binary(alignment: 4) == entry.image)
            #expect(ARMVectorTable(image: entry.image, loadAddress: entry.loadAddress) != nil)
        }
        #expect(catalog.entry(id: "selftest-pca10040").map { $0.size >= 100_000 } == true)
    }

    @Test(
        "Firmware/build.sh --check reproduces the committed images byte for byte",
        .enabled(
            if: TestPaths.which("arm-none-eabi-gcc") != nil, "the ARM toolchain (gcc-arm-none-eabi) is not installed")
    )
    func firmwareReproduces() {
        let script = Self.root.appendingPathComponent("Firmware/build.sh").path
        let result = ProcessRunner().run("/bin/bash", [script, "--check"])
        #expect(result.status == 0, "\(result.stderrText)")
    }
}

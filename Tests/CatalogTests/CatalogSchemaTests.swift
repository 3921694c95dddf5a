import Catalog
import Checksums
import TestSupport
import Testing

/// A valid one-entry catalog whose image is `image`; `edit` changes its text before parsing.
private let image: [UInt8] = [0x00, 0x80, 0x00, 0x20, 0x1D, 0x61, 0x02, 0x00]
private let imageDigest = hexString(SHA256.hash(image))

private func catalogText(_ edit: (String) -> String = { $0 }) -> [UInt8] {
    let text = """
        {
          "schema": 1,
          "firmware": [
            {
              "id": "app",
              "title": "An app",
              "description": "Test image.",
              "version": "2.0.0",
              "boards": ["PCA10040"],
              "chip": "nRF52832",
              "type": "application",
              "file": "app.bin",
              "size": 8,
              "sha256": "\(imageDigest)",
              "load_address": "0x00026000",
              "dfu": {
                "secure": { "hardware_version": 52, "firmware_version": 2, "softdevice_required": [257] }
              }
            }
          ]
        }
        """
    return Array(edit(text).utf8)
}

private func load(_ text: [UInt8], replacing: Bool = false) throws(CatalogError) -> FirmwareCatalog {
    var catalog = try FirmwareCatalog.embedded()
    try catalog.add(catalog: text, source: "my.json", replacing: replacing) { path in
        guard path == "app.bin" else { throw CatalogTestError.missing }
        return image
    }
    return catalog
}

private enum CatalogTestError: Error, CustomStringConvertible {
    case missing
    var description: String { "no such file" }
}

private func at(_ line: Int, _ column: Int) -> CatalogLocation {
    CatalogLocation(source: "my.json", line: line, column: column)
}

@Suite struct CatalogSchemaTests {
    @Test("a user catalog adds its entries after the embedded ones")
    func userCatalog() throws {
        let catalog = try load(catalogText())
        let entry = try #require(catalog.entry(id: "app"))
        #expect(catalog.entries.last == entry)
        #expect(!entry.isEmbedded)
        #expect(entry.image == image)
        #expect(entry.loadAddress == 0x26000)
        #expect(
            entry.secureDFU
                == CatalogEntry.SecureDFU(hardwareVersion: 52, firmwareVersion: 2, softdeviceRequired: [257]))
        #expect(entry.legacyDFU == nil)
        #expect(entry.softdevice == nil)
    }

    @Test(
        "every schema problem names the file, line, column and JSON path",
        arguments: [
            (
                "\"schema\": 1", "\"schema\": 2",
                CatalogError.schema(
                    at(2, 13), path: "schema", message: "unsupported schema version (this nrfloader reads schema 1)")
            ),
            (
                "\"title\": \"An app\",", "",
                .schema(
                    at(4, 5), path: "firmware[0]", message: "missing required field 'title'")
            ),
            (
                "\"size\": 8", "\"size\": \"8\"",
                .schema(
                    at(13, 15), path: "firmware[0].size", message: "expected an integer, found a string")
            ),
            (
                "\"size\": 8", "\"size\": 0",
                .schema(
                    at(13, 15), path: "firmware[0].size", message: "0 is outside 1...2147483647")
            ),
            (
                "\"application\"", "\"app\"",
                .schema(
                    at(11, 15), path: "firmware[0].type",
                    message:
                        "unknown image type 'app' (valid: application, softdevice, bootloader, softdevice+bootloader)")
            ),
            (
                "\"id\": \"app\"", "\"id\": \"App\"",
                .schema(
                    at(5, 13), path: "firmware[0].id",
                    message: "id must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit")
            ),
            (
                imageDigest, "xyz",
                .schema(
                    at(14, 17), path: "firmware[0].sha256", message: "must be 64 lowercase hex digits")
            ),
            (
                "\"0x00026000\"", "\"26000\"",
                .schema(
                    at(15, 23), path: "firmware[0].load_address",
                    message: "must be '0x' and 8 hex digits, e.g. \"0x00026000\"")
            ),
            (
                "\"0x00026000\"", "\"0xFFFFFFFC\"",
                .schema(
                    at(15, 23), path: "firmware[0].load_address",
                    message: "is 0xFFFFFFFC, and 8 bytes from there run past the 4 GiB address space")
            ),
            (
                "\"chip\"", "\"chipset\": \"x\", \"chip\"",
                .schema(
                    at(10, 18), path: "firmware[0].chipset", message: "unknown field 'chipset'")
            ),
            (
                "[\"PCA10040\"]", "[]",
                .schema(
                    at(9, 17), path: "firmware[0].boards", message: "must name at least one board")
            ),
            (
                "\"file\": \"app.bin\"", "\"file\": \"../app.bin\"",
                .schema(
                    at(12, 15), path: "firmware[0].file", message: "must be a relative path inside the catalog's folder"
                )
            ),
            (
                "[257]", "[65536]",
                .schema(
                    at(17, 92), path: "firmware[0].dfu.secure.softdevice_required[0]",
                    message: "65536 is outside 0...65535")
            ),
            (
                "\"secure\": {", "\"legacy\": null, \"other\": {",
                .schema(
                    at(17, 34), path: "firmware[0].dfu.other", message: "unknown field 'other'")
            ),
            (
                "\"version\": \"2.0.0\",", "\"version\": \"2.0.0\"",
                .syntax(
                    at(9, 7), message: "expected ',' or '}' in object, found '\"'")
            ),
            (
                "\"chip\"", "\"title\": \"again\", \"chip\"",
                .syntax(
                    at(10, 7), message: "duplicate key 'title'")
            ),
            ("\n  ]\n}", "", .syntax(at(19, 6), message: "unexpected end of file in array")),
        ] as [(String, String, CatalogError)])
    func schemaErrors(find: String, replacement: String, expected: CatalogError) {
        #expect(throws: expected) { try load(catalogText { $0.replacingOccurrences(of: find, with: replacement) }) }
    }

    @Test("duplicate ids in one catalog name both lines")
    func duplicateIDs() {
        let text = catalogText { text in
            let start = text.range(of: "    {")
            let end = text.range(of: "    }\n  ]")
            guard let start, let end else { return text }
            let entry = String(text[start.lowerBound..<end.upperBound].dropLast(4))
            return text.replacingCharacters(
                in: start.lowerBound..<end.upperBound, with: entry + ",\n" + entry + "\n  ]")
        }
        #expect(throws: CatalogError.duplicateID(at(20, 5), id: "app", firstLine: 4)) { try load(text) }
    }

    @Test("an entry may replace an embedded id only with --catalog-replace")
    func overrideNeedsReplace() throws {
        let text = catalogText { $0.replacingOccurrences(of: "\"id\": \"app\"", with: "\"id\": \"blinky-pca10040\"") }
        #expect(throws: CatalogError.overridesEmbedded(at(4, 5), id: "blinky-pca10040")) { try load(text) }
        let replaced = try load(text, replacing: true)
        #expect(replaced.entries.count == 6)
        #expect(replaced.entry(id: "blinky-pca10040")?.image == image)
    }

    @Test("an image that is missing or differs from its size or SHA-256 is refused")
    func imageChecks() {
        #expect(throws: CatalogError.imageUnreadable(at(12, 15), path: "other.bin", reason: "no such file")) {
            try load(catalogText { $0.replacingOccurrences(of: "app.bin", with: "other.bin") })
        }
        #expect(
            throws: CatalogError.imageMismatch(id: "app", file: "app.bin", field: "size", expected: "9", actual: "8")
        ) { try load(catalogText { $0.replacingOccurrences(of: "\"size\": 8", with: "\"size\": 9") }) }
        let zeros = String(repeating: "0", count: 64)
        #expect(
            throws: CatalogError.imageMismatch(
                id: "app", file: "app.bin", field: "sha256", expected: zeros, actual: imageDigest)
        ) { try load(catalogText { $0.replacingOccurrences(of: imageDigest, with: zeros) }) }
    }

    @Test("an mcuboot entry must hold an MCUboot image, and cannot also be an nRF5 DFU image")
    func mcubootBlock() throws {
        let secure = "\"secure\": { \"hardware_version\": 52, \"firmware_version\": 2, \"softdevice_required\": [257] }"
        // app.bin starts with a vector table, not the MCUboot magic.
        #expect(
            throws: CatalogError.imageMismatch(
                id: "app", file: "app.bin", field: "first word", expected: "0x96f3b83d (an MCUboot image's magic)",
                actual: "0x20008000")
        ) { try load(catalogText { $0.replacingOccurrences(of: secure, with: "\"mcuboot\": { \"image\": 0 }") }) }
        #expect(throws: CatalogError.self) {
            try load(
                catalogText { $0.replacingOccurrences(of: secure, with: secure + ", \"mcuboot\": { \"image\": 0 }") })
        }
        do {
            _ = try load(catalogText { $0.replacingOccurrences(of: secure, with: "\"mcuboot\": { \"image\": 256 }") })
            Issue.record("image 256 was accepted")
        } catch {
            #expect("\(error)" == "my.json:17:31: firmware[0].dfu.mcuboot.image: 256 is outside 0...255")
        }
        let embedded = try #require(try FirmwareCatalog.embedded().entry(id: "selftest-nrf52840dk-mcuboot"))
        #expect(embedded.mcuboot == CatalogEntry.MCUbootDFU(imageNumber: 0))
        #expect(embedded.secureDFU == nil && embedded.legacyDFU == nil)
    }
}

@Suite struct ARMVectorTableTests {
    @Test(
        "recognises a Cortex-M application and rejects what is not one",
        arguments: [
            ([0x00, 0x80, 0x00, 0x20, 0x09, 0x60, 0x02, 0x00, 0, 0, 0, 0] as [UInt8], UInt32?.some(0x26000), true),
            ([0x00, 0x80, 0x00, 0x20, 0x1C, 0x61, 0x02, 0x00], 0x26000, false),
            ([0x00, 0x80, 0x00, 0x30, 0x1D, 0x61, 0x02, 0x00], 0x26000, false),
            ([0x00, 0x80, 0x00, 0x20, 0x1D, 0x61, 0x02, 0x00], 0x27000, false),
            ([0x00, 0x80, 0x00, 0x20, 0x1D, 0x61, 0x02, 0x00], nil, true),
            ([0x00, 0x80, 0x00, 0x20], nil, false),
        ])
    func detection(image: [UInt8], loadAddress: UInt32?, expected: Bool) {
        #expect((ARMVectorTable(image: image, loadAddress: loadAddress) != nil) == expected)
    }
}

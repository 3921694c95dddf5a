import NRFLoaderKit
import Testing

/// The catalog, through the public API alone.
@Suite struct CatalogItemTests {
    @Test("every entry carries what `list --json` shows: file, checksum, address and its protocols' fields")
    func fields() throws {
        let items = try CatalogItem.all()
        let blinky = try #require(items.first { $0.id == "blinky-pca10040" })
        #expect(blinky.isEmbedded)
        #expect(blinky.imageType == "application")
        #expect(blinky.sha256.count == 64)
        #expect(blinky.size == 604)
        #expect(blinky.secureDFU != nil)
        #expect(blinky.protocols.contains("secure"))
        #expect(blinky.mcubootImageNumber == nil)
        let mcuboot = try #require(items.first { $0.id == "selftest-nrf52840dk-mcuboot" })
        #expect(mcuboot.protocols == ["smp"])
        #expect(mcuboot.mcubootImageNumber != nil)
    }

    @Test("a catalog file that does not exist is a missing input (66)")
    func missingCatalogFile() {
        var options = FirmwareOptions()
        options.catalogFile = "/nonexistent/catalog.json"
        #expect {
            _ = try CatalogItem.all(options: options)
        } throws: { error in
            (error as? UpdateError)?.exitStatus == .noInput
        }
    }
}

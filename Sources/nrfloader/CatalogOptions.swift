import ArgumentParser
import Catalog
import FoundationEssentials
import NRFLoaderKit

/// `--catalog` and `--catalog-replace`: the embedded catalog plus a user's own.
struct CatalogOptions: ParsableArguments {
    @Option(help: "Add the entries of this catalog file (same schema as the embedded one; paths relative to it).")
    var catalog: String?

    @Flag(help: "Let entries of --catalog replace embedded entries with the same id.")
    var catalogReplace = false

    func validate() throws {
        if catalogReplace && catalog == nil { throw ValidationError("--catalog-replace needs --catalog FILE") }
    }

    /// The embedded catalog, with the user's catalog added.
    func load() throws -> FirmwareCatalog {
        var firmware = try FirmwareCatalog.embedded()
        guard let catalog else { return firmware }
        let text = try InputFile(path: catalog).readAll()
        let folder = URL(fileURLWithPath: catalog).deletingLastPathComponent()
        try firmware.add(catalog: text, source: catalog, replacing: catalogReplace) { path in
            let imagePath = folder.appendingPathComponent(path).path
            do {
                return try InputFile(path: imagePath).readAll()
            } catch let error as ToolError {
                throw ImageReadFailure(reason: error.reason)
            }
        }
        return firmware
    }
}

/// Why an image named by a user catalog could not be read, as the catalog error's reason.
private struct ImageReadFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

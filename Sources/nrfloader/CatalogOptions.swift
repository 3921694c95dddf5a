import ArgumentParser
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

    /// The options that add the user's catalog to the embedded one.
    var firmwareOptions: FirmwareOptions {
        var options = FirmwareOptions()
        options.catalogFile = catalog
        options.catalogReplacesEmbedded = catalogReplace
        return options
    }

    /// The embedded catalog's entries, with the user's catalog added.
    func load() throws(UpdateError) -> [CatalogItem] {
        try CatalogItem.all(options: firmwareOptions)
    }
}

internal import Checksums

/// The firmware catalog: the entries compiled into the executable, plus any from user catalogs.
package struct FirmwareCatalog: Sendable {
    /// Every entry, embedded ones first, in catalog order.
    package private(set) var entries: [CatalogEntry]

    /// Reads the embedded catalog and verifies each image's size and SHA-256.
    ///
    /// - Returns: The embedded catalog.
    /// - Throws: ``CatalogError`` if the embedded catalog is malformed or an image does not match it (a build
    ///   problem: the tests catch it first).
    package static func embedded() throws(CatalogError) -> FirmwareCatalog {
        let files = EmbeddedFiles.all
        let decoded = try CatalogDecoder(source: EmbeddedFiles.catalogName).decode(files["catalog.json"] ?? [])
        var entries: [CatalogEntry] = []
        for item in decoded {
            guard let image = files[item.entry.file] else {
                throw .imageUnreadable(
                    item.fileLocation, path: item.entry.file, reason: "not embedded in this executable")
            }
            var entry = item.entry
            entry.isEmbedded = true
            entry.image = image
            try verify(entry)
            entries.append(entry)
        }
        return FirmwareCatalog(entries: entries)
    }

    /// Adds the entries of a user catalog.
    ///
    /// - Parameters:
    ///   - text: The catalog's bytes.
    ///   - source: Its path, for messages.
    ///   - replacing: Whether an entry may replace an embedded entry with the same id (`--catalog-replace`).
    ///   - readImage: Reads an image by its path relative to the catalog's folder; throws a reason on failure.
    /// - Throws: ``CatalogError``.
    package mutating func add(
        catalog text: [UInt8],
        source: String,
        replacing: Bool,
        readImage: (String) throws -> [UInt8]
    ) throws(CatalogError) {
        let decoded = try CatalogDecoder(source: source).decode(text)
        for item in decoded {
            if let existing = entries.firstIndex(where: { $0.id == item.entry.id }) {
                guard replacing, entries[existing].isEmbedded else {
                    throw .overridesEmbedded(item.location, id: item.entry.id)
                }
                entries.remove(at: existing)
            }
            var entry = item.entry
            do {
                entry.image = try readImage(entry.file)
            } catch {
                throw .imageUnreadable(item.fileLocation, path: entry.file, reason: "\(error)")
            }
            try Self.verify(entry)
            entries.append(entry)
        }
    }

    /// The entry with `id`, if any.
    ///
    /// - Parameter id: A catalog id.
    /// - Returns: The entry.
    package func entry(id: String) -> CatalogEntry? {
        entries.first { $0.id == id }
    }

    private static func verify(_ entry: CatalogEntry) throws(CatalogError) {
        guard entry.image.count == entry.size else {
            throw .imageMismatch(
                id: entry.id, file: entry.file, field: "size", expected: String(entry.size),
                actual: String(entry.image.count)
            )
        }
        let digest = hexString(SHA256.hash(entry.image))
        guard digest == entry.sha256 else {
            throw .imageMismatch(
                id: entry.id, file: entry.file, field: "sha256", expected: entry.sha256, actual: digest)
        }
        // The MCUboot image magic, 0x96f3b83d, little-endian: SMP would send anything else to be refused by the device.
        if entry.mcuboot != nil, !entry.image.starts(with: [0x3D, 0xB8, 0xF3, 0x96]) {
            throw .imageMismatch(
                id: entry.id, file: entry.file, field: "first word",
                expected: "0x96f3b83d (an MCUboot image's magic)",
                actual: "0x" + hexString(entry.image.prefix(4).reversed()))
        }
    }
}

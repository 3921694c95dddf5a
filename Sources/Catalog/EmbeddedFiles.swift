internal import CatalogEmbedded

/// The files compiled into the executable: `catalog.json` and the images it names, by path relative to the
/// repository root.
package enum EmbeddedFiles {
    /// Every embedded file, by path.
    package static let all: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for index in 0..<nrf_embedded_count() {
            guard let file = nrf_embedded_get(index), let name = file.pointee.name, let data = file.pointee.data else {
                continue
            }
            files[String(cString: name)] = Array(UnsafeBufferPointer(start: data, count: Int(file.pointee.size)))
        }
        return files
    }()

    /// The embedded catalog's name in messages.
    package static let catalogName = "<embedded catalog.json>"
}

/// Everything that can be wrong with a catalog or the images it names.
///
/// Positions are `FILE:LINE:COLUMN` of the offending JSON value, followed by its JSON path
/// (`firmware[2].sha256`), so that a user can fix a hand-written catalog without guessing.
package enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not valid JSON.
    case syntax(CatalogLocation, message: String)
    /// The JSON does not follow the catalog schema.
    case schema(CatalogLocation, path: String, message: String)
    /// Two entries share an id.
    case duplicateID(CatalogLocation, id: String, firstLine: Int)
    /// A user catalog entry has the id of an embedded entry, and embedded entries are not to be replaced.
    case overridesEmbedded(CatalogLocation, id: String)
    /// The image file an entry names does not exist or cannot be read.
    case imageUnreadable(CatalogLocation, path: String, reason: String)
    /// The image's size or SHA-256 is not what the catalog says.
    case imageMismatch(id: String, file: String, field: String, expected: String, actual: String)
    /// No entry has this id.
    case unknownID(String, known: [String])

    package var description: String {
        switch self {
        case .syntax(let location, let message):
            return "\(location): \(message)"
        case .schema(let location, let path, let message):
            return "\(location): \(path): \(message)"
        case .duplicateID(let location, let id, let firstLine):
            return "\(location): id '\(id)' is already used by the entry on line \(firstLine)"
        case .overridesEmbedded(let location, let id):
            return "\(location): id '\(id)' is an embedded catalog entry; use "
                + "FirmwareOptions.catalogReplacesEmbedded to override it"
        case .imageUnreadable(let location, let path, let reason):
            return "\(location): image '\(path)' cannot be read: \(reason)"
        case .imageMismatch(let id, let file, let field, let expected, let actual):
            return "catalog entry '\(id)': '\(file)' has \(field) \(actual), the catalog says \(expected)"
        case .unknownID(let id, let known):
            return "'\(id)' is neither a file nor a catalog id (ids: \(known.joined(separator: ", ")))"
        }
    }
}

/// Where in a catalog file something is.
package struct CatalogLocation: Sendable, Equatable, CustomStringConvertible {
    /// The catalog's name: its path, or `<embedded catalog.json>`.
    package var source: String
    package var line: Int
    package var column: Int

    /// Creates a location.
    ///
    /// - Parameters:
    ///   - source: The catalog's name.
    ///   - line: The 1-based line.
    ///   - column: The 1-based column.
    package init(source: String, line: Int, column: Int) {
        self.source = source
        self.line = line
        self.column = column
    }

    package var description: String { "\(source):\(line):\(column)" }
}

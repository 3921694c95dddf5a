/// Turns catalog JSON into entries, checking every field against the schema (README, "Catalog format").
///
/// Unknown keys are errors, so a misspelt field is reported rather than ignored.
struct CatalogDecoder {
    /// An entry as decoded, before its image is read.
    struct Decoded {
        var entry: CatalogEntry
        /// Where the entry's object starts.
        var location: CatalogLocation
        /// Where its `file` value is.
        var fileLocation: CatalogLocation
    }

    /// The only schema version this build reads.
    static let schemaVersion: Int64 = 1

    let source: String

    /// Decodes catalog text.
    ///
    /// - Parameter text: The catalog's bytes.
    /// - Returns: Its entries, in file order.
    /// - Throws: ``CatalogError``.
    func decode(_ text: [UInt8]) throws(CatalogError) -> [Decoded] {
        let root: JSONNode
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw .syntax(
                CatalogLocation(source: source, line: error.line, column: error.column), message: error.message)
        }
        var top = try ObjectReader(root, path: "$", source: source)
        let schema = try top.required("schema")
        guard case .integer(let version) = schema.node.value, version == Self.schemaVersion else {
            throw schema.error("unsupported schema version (this nrfloader reads schema \(Self.schemaVersion))")
        }
        let firmware = try top.required("firmware").array()
        try top.rejectUnknownKeys()
        var decoded: [Decoded] = []
        var firstLines: [String: Int] = [:]
        for item in firmware {
            let entry = try decodeEntry(item)
            if let firstLine = firstLines[entry.entry.id] {
                throw .duplicateID(entry.location, id: entry.entry.id, firstLine: firstLine)
            }
            firstLines[entry.entry.id] = entry.location.line
            decoded.append(entry)
        }
        return decoded
    }

    private func decodeEntry(_ field: Field) throws(CatalogError) -> Decoded {
        var object = try ObjectReader(field.node, path: field.path, source: source)
        let idField = try object.required("id")
        let id = try idField.string()
        guard Self.isValidID(id) else {
            throw idField.error(
                "id must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit")
        }
        let title = try object.required("title").string()
        let description = try object.required("description").string()
        let version = try object.required("version").string()
        let boardsField = try object.required("boards")
        let boards = try boardsField.array().map { (board) throws(CatalogError) in try board.string() }
        guard !boards.isEmpty else { throw boardsField.error("must name at least one board") }
        let chip = try object.required("chip").string()
        let typeField = try object.required("type")
        let typeName = try typeField.string()
        guard let type = CatalogEntry.ImageType(rawValue: typeName) else {
            let valid = CatalogEntry.ImageType.allCases.map(\.rawValue).joined(separator: ", ")
            throw typeField.error("unknown image type '\(typeName)' (valid: \(valid))")
        }
        let fileField = try object.required("file")
        let file = try fileField.string()
        guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
            throw fileField.error("must be a relative path inside the catalog's folder")
        }
        let sizeField = try object.required("size")
        let size = try sizeField.integer(in: 1...Int64(Int32.max))
        let shaField = try object.required("sha256")
        let sha256 = try shaField.string()
        guard sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw shaField.error("must be 64 lowercase hex digits") }
        let addressField = try object.required("load_address")
        let addressText = try addressField.string()
        guard addressText.utf8.count == 10, addressText.hasPrefix("0x"),
            let loadAddress = UInt32(addressText.dropFirst(2), radix: 16),
            addressText.dropFirst(2).utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw addressField.error("must be '0x' and 8 hex digits, e.g. \"0x00026000\"") }
        // size is at most Int32.max, so the sum is exact in Int64; the image must end inside the 4 GiB address space.
        guard Int64(loadAddress) + size <= 1 << 32 else {
            throw addressField.error("is \(addressText), and \(size) bytes from there run past the 4 GiB address space")
        }
        let softdevice = try object.optional("softdevice")?.string()
        let dfuField = try object.required("dfu")
        var dfu = try ObjectReader(dfuField.node, path: dfuField.path, source: source)
        let legacy = try dfu.optional("legacy").map { (field) throws(CatalogError) in try decodeLegacy(field) }
        let secure = try dfu.optional("secure").map { (field) throws(CatalogError) in try decodeSecure(field) }
        let mcuboot = try dfu.optional("mcuboot").map { (field) throws(CatalogError) in try decodeMCUboot(field) }
        try dfu.rejectUnknownKeys()
        guard legacy != nil || secure != nil || mcuboot != nil else {
            throw dfuField.error("needs a 'legacy', 'secure' or 'mcuboot' block")
        }
        // A signed MCUboot image is what SMP sends whole; nRF5 DFU would send its header as application code.
        if mcuboot != nil, legacy != nil || secure != nil {
            throw dfuField.error("an 'mcuboot' image cannot also have a 'legacy' or 'secure' block")
        }
        try object.rejectUnknownKeys()
        let entry = CatalogEntry(
            id: id, title: title, description: description, version: version, boards: boards, chip: chip,
            type: type, file: file, size: Int(size), sha256: sha256, loadAddress: loadAddress,
            softdevice: softdevice, legacyDFU: legacy, secureDFU: secure, mcuboot: mcuboot, isEmbedded: false, image: []
        )
        return Decoded(entry: entry, location: field.location, fileLocation: fileField.location)
    }

    private func decodeLegacy(_ field: Field) throws(CatalogError) -> CatalogEntry.LegacyDFU {
        var object = try ObjectReader(field.node, path: field.path, source: source)
        let legacy = CatalogEntry.LegacyDFU(
            deviceType: UInt16(try object.required("device_type").integer(in: 0...0xFFFF)),
            deviceRevision: UInt16(try object.required("device_revision").integer(in: 0...0xFFFF)),
            applicationVersion: UInt32(try object.required("application_version").integer(in: 0...0xFFFF_FFFF)),
            softdeviceIDs: try softdeviceList(try object.required("softdevice_ids"))
        )
        try object.rejectUnknownKeys()
        return legacy
    }

    private func decodeSecure(_ field: Field) throws(CatalogError) -> CatalogEntry.SecureDFU {
        var object = try ObjectReader(field.node, path: field.path, source: source)
        let secure = CatalogEntry.SecureDFU(
            hardwareVersion: UInt32(try object.required("hardware_version").integer(in: 0...0xFFFF_FFFF)),
            firmwareVersion: UInt32(try object.required("firmware_version").integer(in: 0...0xFFFF_FFFF)),
            softdeviceRequired: try softdeviceList(try object.required("softdevice_required"))
        )
        try object.rejectUnknownKeys()
        return secure
    }

    private func decodeMCUboot(_ field: Field) throws(CatalogError) -> CatalogEntry.MCUbootDFU {
        var object = try ObjectReader(field.node, path: field.path, source: source)
        let mcuboot = CatalogEntry.MCUbootDFU(imageNumber: Int(try object.required("image").integer(in: 0...255)))
        try object.rejectUnknownKeys()
        return mcuboot
    }

    private func softdeviceList(_ field: Field) throws(CatalogError) -> [UInt16] {
        let ids = try field.array().map { (item) throws(CatalogError) in UInt16(try item.integer(in: 0...0xFFFF)) }
        guard !ids.isEmpty else { throw field.error("must list at least one SoftDevice id (0xFFFE for any)") }
        return ids
    }

    static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard let first = bytes.first, bytes.count <= 64 else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        return isAlphanumeric(first)
            && bytes.allSatisfy {
                isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == 0x2E
            }
    }
}

/// A JSON value with its path, for typed reads that report where they failed.
struct Field {
    var node: JSONNode
    var path: String
    var source: String

    var location: CatalogLocation { CatalogLocation(source: source, line: node.line, column: node.column) }

    func error(_ message: String) -> CatalogError {
        .schema(location, path: path, message: message)
    }

    func string() throws(CatalogError) -> String {
        guard case .string(let value) = node.value else { throw error("expected a string, found \(node.typeName)") }
        return value
    }

    func integer(in range: ClosedRange<Int64>) throws(CatalogError) -> Int64 {
        guard case .integer(let value) = node.value else { throw error("expected an integer, found \(node.typeName)") }
        guard range.contains(value) else {
            throw error("\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func array() throws(CatalogError) -> [Field] {
        guard case .array(let items) = node.value else { throw error("expected an array, found \(node.typeName)") }
        return items.enumerated().map { Field(node: $1, path: "\(path)[\($0)]", source: source) }
    }
}

/// Reads the members of a JSON object one by one and then refuses any it was not asked for.
struct ObjectReader {
    private let field: Field
    private let members: [(key: String, value: JSONNode)]
    private var used: Set<String> = []

    init(_ node: JSONNode, path: String, source: String) throws(CatalogError) {
        field = Field(node: node, path: path, source: source)
        guard case .object(let members) = node.value else {
            throw field.error("expected an object, found \(node.typeName)")
        }
        self.members = members
    }

    private func child(_ key: String) -> String {
        field.path == "$" ? key : "\(field.path).\(key)"
    }

    mutating func optional(_ key: String) throws(CatalogError) -> Field? {
        used.insert(key)
        guard let member = members.first(where: { $0.key == key }) else { return nil }
        if case .null = member.value.value { return nil }
        return Field(node: member.value, path: child(key), source: field.source)
    }

    mutating func required(_ key: String) throws(CatalogError) -> Field {
        guard let value = try optional(key) else { throw field.error("missing required field '\(key)'") }
        return value
    }

    func rejectUnknownKeys() throws(CatalogError) {
        for member in members where !used.contains(member.key) {
            let unknown = Field(node: member.value, path: child(member.key), source: field.source)
            throw unknown.error("unknown field '\(member.key)'")
        }
    }
}

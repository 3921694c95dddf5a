internal import FoundationEssentials

/// Any JSON value of `manifest.json`: `generate_zip.py` passes every `key=value` of the build through, as a string,
/// or as an integer when the value was written `0x…`, so a reader must take what comes and check each field itself.
enum ManifestValue: Decodable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([ManifestValue])
    case object([String: ManifestValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ManifestValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ManifestValue].self))
        }
    }

    /// Parses a document.
    static func parse(_ bytes: [UInt8]) -> ManifestValue? {
        try? JSONDecoder().decode(ManifestValue.self, from: Data(bytes))
    }

    /// A short name of the value's kind, for messages.
    var kind: String {
        switch self {
        case .string: "a string"
        case .integer, .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The member `key` of an object.
    subscript(key: String) -> ManifestValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }
}

/// A D-Bus type, as a value: what a signature string says, parsed.
///
/// Arrays and dictionaries carry their element types so that empty ones can still be written (the wire needs
/// the element signature even when there are no elements).
package indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte, bool, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD, variant
    /// `aT`.
    case array(DBusType)
    /// `a{KV}`; the key is a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(T…)`, at least one field.
    case structure([DBusType])

    /// The type's signature: `a{sv}`.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// Whether the type is basic (allowed as a dictionary key).
    package var isBasic: Bool {
        switch self {
        case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath,
            .signature, .unixFD:
            true
        case .variant, .array, .dictionary, .structure:
            false
        }
    }

    package var description: String { signature }

    /// Parses a signature that holds exactly one complete type.
    ///
    /// Fails when the text is not exactly one valid complete type.
    ///
    /// - Parameter signature: For example `a{sv}`.
    package init?(signature: String) {
        var parser = SignatureParser(Array(signature.utf8))
        guard let type = parser.parseType(), parser.isAtEnd else { return nil }
        self = type
    }

    /// Parses a signature of zero or more complete types, as a message body has.
    ///
    /// - Parameter signature: For example `oa{sv}`.
    /// - Returns: The types, or `nil` when the text is not a valid signature.
    package static func types(inSignature signature: String) -> [DBusType]? {
        var parser = SignatureParser(Array(signature.utf8))
        var types: [DBusType] = []
        while !parser.isAtEnd {
            guard let type = parser.parseType() else { return nil }
            types.append(type)
        }
        return types
    }
}

/// A recursive-descent reader of D-Bus signatures (D-Bus specification, "Type System").
private struct SignatureParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func parseType() -> DBusType? {
        guard index < bytes.count, depth < 64 else { return nil }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .bool
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            depth += 1
            defer { depth -= 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                guard let key = parseType(), key.isBasic, let value = parseType(),
                    index < bytes.count, bytes[index] == UInt8(ascii: "}")
                else { return nil }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return parseType().map { .array($0) }
        case UInt8(ascii: "("):
            depth += 1
            defer { depth -= 1 }
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                guard let field = parseType() else { return nil }
                fields.append(field)
            }
            guard index < bytes.count, !fields.isEmpty else { return nil }
            index += 1
            return .structure(fields)
        default:
            return nil
        }
    }
}

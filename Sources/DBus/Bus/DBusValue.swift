/// One D-Bus value, as read from or written to a message.
///
/// `ay` has its own case, ``bytes(_:)``, because BlueZ moves every characteristic value as `ay`: reading always
/// produces it, and writing `.array(.byte, …)` produces the same wire bytes.
///
/// Unix file descriptors: a value read from a message holds a descriptor the reader owns and must close; a value
/// written to a message is duplicated by libdbus, so the writer keeps ownership of its own.
package indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    /// An object path such as `/org/bluez/hci0`.
    case objectPath(String)
    /// A type signature such as `a{sv}`.
    case signature(String)
    /// A unix file descriptor (see the ownership note on the type).
    case unixFD(Int32)
    /// `ay`.
    case bytes([UInt8])
    /// An array of `element`-typed values (`ay` reads as ``bytes(_:)``).
    case array(DBusType, [DBusValue])
    /// A dictionary `a{KV}`, entries in wire order.
    case dictionary(key: DBusType, value: DBusType, [DBusDictionaryEntry])
    /// A structure `(…)`.
    case structure([DBusValue])
    /// A variant: a value that carries its own type.
    case variant(DBusValue)

    /// The value's D-Bus type.
    package var type: DBusType {
        switch self {
        case .byte: .byte
        case .bool: .bool
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    /// An `a{sv}` dictionary, entries sorted by key so that messages are reproducible.
    ///
    /// - Parameter properties: The entries; each value is wrapped in a variant.
    /// - Returns: The dictionary value.
    package static func propertyDictionary(_ properties: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            properties.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(.string($0.key), .variant($0.value)) })
    }

    /// An `as` array.
    ///
    /// - Parameter strings: The strings.
    /// - Returns: The array value.
    package static func stringArray(_ strings: [String]) -> DBusValue {
        .array(.string, strings.map { .string($0) })
    }
}

/// One entry of a D-Bus dictionary.
package struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key, of a basic type.
    package var key: DBusValue
    /// The value.
    package var value: DBusValue

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The key, of a basic type.
    ///   - value: The value.
    package init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// The string of a `s`, `o` or `g` value (looking through a variant).
    package var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The value of a `b` (looking through a variant).
    package var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .variant(let inner): inner.boolValue
        default: nil
        }
    }

    /// Any integer value that fits an `Int` (looking through a variant).
    package var intValue: Int? {
        switch self {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        case .variant(let inner): inner.intValue
        default: nil
        }
    }

    /// The bytes of an `ay` (looking through a variant).
    package var bytesValue: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .array(.byte, let elements):
            elements.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
        case .variant(let inner): inner.bytesValue
        default: nil
        }
    }

    /// The strings of an `as` or `ao` (looking through a variant).
    package var stringArrayValue: [String]? {
        switch self {
        case .array(_, let elements):
            elements.compactMap(\.stringValue)
        case .variant(let inner): inner.stringArrayValue
        default: nil
        }
    }

    /// The entries of a dictionary keyed by strings or object paths, variants left in place (looking through a
    /// variant).
    package var stringKeyedDictionary: [String: DBusValue]? {
        switch self {
        case .dictionary(_, _, let entries):
            var result: [String: DBusValue] = [:]
            for entry in entries {
                guard let key = entry.key.stringValue else { return nil }
                result[key] = entry.value
            }
            return result
        case .variant(let inner):
            return inner.stringKeyedDictionary
        default:
            return nil
        }
    }

    /// The value inside a variant, or the value itself.
    package var unwrappingVariant: DBusValue {
        if case .variant(let inner) = self { inner.unwrappingVariant } else { self }
    }
}

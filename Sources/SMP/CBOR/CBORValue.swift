/// A CBOR data item (RFC 8949), restricted to what SMP uses: integers, byte and text strings, arrays, maps, `true`,
/// `false` and `null`.
///
/// Maps keep their entries in wire order (zcbor emits and reads them in order, and a test compares bytes), so a map
/// is a list of ``CBORMapEntry`` rather than a dictionary. Floats, tags and other simple values are not part of SMP's
/// image and OS groups; the decoder rejects them with a reason.
package indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer, 0 to 2^64 − 1.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − `n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, entries in wire order.
    case map([CBORMapEntry])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// An integer value, positive or negative.
    ///
    /// - Parameter value: The integer.
    /// - Returns: `.unsigned` for values from 0, `.negative` below.
    package static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as an `Int`, when it is an integer that fits.
    package var intValue: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -1 - Int(value) : nil
        case .bytes, .text, .array, .map, .bool, .null: nil
        }
    }

    /// The value for a text key, when this is a map that has one (the decoder refuses a map with a repeated key).
    ///
    /// - Parameter key: The text key.
    package subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .text(key) }?.value
    }

    /// The value of an integer item as text, whatever its size: `18446744073709551615`, `-18446744073709551616`;
    /// `nil` for other items.
    package var integerText: String? {
        switch self {
        case .unsigned(let value): String(value)
        case .negative(let value): value == .max ? "-18446744073709551616" : "-\(value + 1)"
        case .bytes, .text, .array, .map, .bool, .null: nil
        }
    }

    /// The item in a few words for a message: a text key in quotes, an integer's value, otherwise its kind.
    package var briefDescription: String {
        switch self {
        case .text(let text): "'\(text.count <= 32 ? text : String(text.prefix(32)) + "…")'"
        case .unsigned, .negative: integerText ?? kindDescription
        case .bytes, .array, .map, .bool, .null: kindDescription
        }
    }

    /// What kind of item this is, for error messages ("a byte string").
    package var kindDescription: String {
        switch self {
        case .unsigned, .negative: "an integer"
        case .bytes: "a byte string"
        case .text: "a text string"
        case .array: "an array"
        case .map: "a map"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// One key and value of a CBOR map.
package struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    package var key: CBORValue
    /// The value.
    package var value: CBORValue

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    package init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }

    /// An entry with a text key, as every SMP map has.
    ///
    /// - Parameters:
    ///   - key: The key text.
    ///   - value: The value.
    package init(_ key: String, _ value: CBORValue) {
        self.init(.text(key), value)
    }
}

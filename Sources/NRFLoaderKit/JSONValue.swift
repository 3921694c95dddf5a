/// A JSON document as `nrfloader` prints it: object keys sorted, nulls explicit, no whitespace, and every control
/// character escaped, so that the text is as inert on a terminal as the human output.
///
/// ``UpdateEvent/jsonValue`` is an update's event in this form; a program that prints its own JSON Lines next to
/// them (a fleet's, with a `device` member added) builds them from this type and prints ``text``.
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; its keys are written in sorted order.
    case object([String: JSONValue])

    /// The schema version carried by every object `nrfloader` prints (its `schema` member); bumped on any
    /// incompatible change.
    public static let schemaVersion = 1

    /// The compact text of the value: no whitespace, object keys sorted.
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key]?.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                // C0 must be escaped (RFC 8259); DEL and C1 are escaped too, so that JSON printed on a terminal is
                // as inert as the human output.
                let digits = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue {
    /// An optional value, or `null`.
    ///
    /// - Parameters:
    ///   - value: The value, if any.
    ///   - transform: Makes the JSON of a value.
    /// - Returns: `transform(value)`, or ``JSONValue/null`` for `nil`.
    public static func optional<T>(_ value: T?, _ transform: (T) -> JSONValue) -> JSONValue {
        value.map(transform) ?? .null
    }
}

/// A JSON value written exactly as Python's `json.dumps(value, sort_keys=True, indent=4, separators=(',', ': '))`
/// writes it, which is how both nrfutil and adafruit-nrfutil write `manifest.json`.
indirect enum PythonJSON: Equatable {
    case object([String: PythonJSON])
    case array([PythonJSON])
    case string(String)
    case integer(UInt64)
    /// A float, given as Python's `repr` of it (e.g. `0.5`).
    case float(String)

    /// The text, without a trailing newline (`json.dumps` writes none).
    var text: String {
        var out = ""
        write(to: &out, depth: 0)
        return out
    }

    private func write(to out: inout String, depth: Int) {
        let inner = String(repeating: " ", count: 4 * (depth + 1))
        let outer = String(repeating: " ", count: 4 * depth)
        switch self {
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}"
                return
            }
            out += "{\n"
            // Python sorts str keys by code point; Swift's String < compares the same way for these ASCII names.
            let keys = members.keys.sorted {
                Array($0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.unicodeScalars.map(\.value))
            }
            for (index, key) in keys.enumerated() {
                out += inner + Self.quoted(key) + ": "
                members[key]?.write(to: &out, depth: depth + 1)
                out += index == keys.count - 1 ? "\n" : ",\n"
            }
            out += outer + "}"
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                item.write(to: &out, depth: depth + 1)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += outer + "]"
        case .string(let value): out += Self.quoted(value)
        case .integer(let value): out += String(value)
        case .float(let repr): out += repr
        }
    }

    /// `ensure_ascii` quoting: `\"`, `\\`, `\n` and friends, every other non-printable or non-ASCII character as
    /// `\uXXXX` (UTF-16 units).
    private static func quoted(_ value: String) -> String {
        var out = "\""
        for unit in value.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out += String(UnicodeScalar(UInt8(unit)))
            default:
                let digits = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            }
        }
        return out + "\""
    }
}

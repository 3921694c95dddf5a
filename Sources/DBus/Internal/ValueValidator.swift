/// Checks a value against the D-Bus specification's rules before libdbus sees it, because libdbus answers a
/// bad argument with a warning and a half-built message rather than an error.
enum ValueValidator {
    static func validate(_ value: DBusValue) throws(DBusError) {
        switch value {
        case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .bytes:
            return
        case .unixFD(let descriptor):
            guard descriptor >= 0 else { throw .invalidArgument("unix fd \(descriptor) is negative") }
        case .string(let text):
            guard !text.utf8.contains(0) else { throw .invalidArgument("string '\(text)' contains a NUL character") }
        case .objectPath(let path):
            guard isValidObjectPath(path) else { throw .invalidArgument("'\(path)' is not an object path") }
        case .signature(let signature):
            guard signature.utf8.count <= 255, DBusType.types(inSignature: signature) != nil else {
                throw .invalidArgument("'\(signature)' is not a signature")
            }
        case .array(let element, let elements):
            for item in elements {
                guard item.type == element else {
                    throw .invalidArgument("array of '\(element)' holds a '\(item.type)'")
                }
                try validate(item)
            }
        case .dictionary(let key, let valueType, let entries):
            guard key.isBasic else { throw .invalidArgument("dictionary key type '\(key)' is not basic") }
            for entry in entries {
                guard entry.key.type == key, entry.value.type == valueType else {
                    throw .invalidArgument(
                        "dictionary of '\(key)' to '\(valueType)' holds '\(entry.key.type)' to '\(entry.value.type)'")
                }
                try validate(entry.key)
                try validate(entry.value)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgument("a structure needs at least one field") }
            for field in fields { try validate(field) }
        case .variant(let inner):
            try validate(inner)
        }
    }

    /// `/`, or `/` followed by non-empty elements of `[A-Za-z0-9_]` joined by `/` (D-Bus specification).
    static func isValidObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
                continue
            }
            previousWasSlash = false
            let isAllowed =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            if !isAllowed { return false }
        }
        return true
    }
}

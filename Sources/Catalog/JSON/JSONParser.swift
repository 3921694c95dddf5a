/// A strict JSON (RFC 8259) reader that remembers where every value starts.
///
/// Catalog files are written by people, so a mistake must be reported as `FILE:LINE:COLUMN`. Foundation's decoder
/// reports syntax errors vaguely and schema errors without a position; this reader keeps the position of every
/// value for ``CatalogDecoder`` to use. Duplicate keys are an error, not a silent "last one wins".
struct JSONParser {
    /// What is wrong with the text, and where.
    struct SyntaxError: Error {
        var message: String
        var line: Int
        var column: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    /// The deepest nesting accepted; deeper input is refused rather than risking the stack.
    static let maximumDepth = 64

    /// Parses a whole document.
    ///
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: The root value.
    /// - Throws: ``SyntaxError``.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        let root = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return root
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var column: Int { index - lineStart + 1 }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONNode {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        let startLine = line
        let startColumn = column
        let value: JSONNode.Value
        switch bytes[index] {
        case UInt8(ascii: "{"): value = try parseObject()
        case UInt8(ascii: "["): value = try parseArray()
        case UInt8(ascii: "\""): value = .string(try parseString())
        case UInt8(ascii: "t"): value = try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): value = try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): value = try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
        return JSONNode(value: value, line: startLine, column: startColumn)
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONNode.Value {
        try enter()
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        var keys: Set<String> = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key in object")
            }
            let keyLine = line
            let keyColumn = column
            let key = try parseString()
            guard keys.insert(key).inserted else {
                throw SyntaxError(message: "duplicate key '\(key)'", line: keyLine, column: keyColumn)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            members.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file in object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else {
                throw error("expected ',' or '}' in object, found \(describe(bytes[index]))")
            }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONNode.Value {
        try enter()
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file in array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else {
                throw error("expected ',' or ']' in array, found \(describe(bytes[index]))")
            }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONNode.Value) throws(SyntaxError) -> JSONNode.Value {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw error("invalid literal, expected '\(word)'")
        }
        index += expected.count
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONNode.Value {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("invalid number: leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: digit expected after '.'")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: digit expected in exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        return .number(text)
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ bytes: [UInt8], _ from: Int, _ to: Int, into scalars: inout String.UnicodeScalarView) {
            scalars.append(contentsOf: String(decoding: bytes[from..<to], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                flush(bytes, run, index, into: &scalars)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(bytes, run, index, into: &scalars)
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                switch bytes[index] {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    scalars.append(try parseUnicodeEscape())
                    run = index
                    continue
                default: throw error("invalid escape \\\(describe(bytes[index]))")
                }
                index += 1
                run = index
            case 0x00..<0x20:
                throw error("control character \(describe(byte)) in string (escape it)")
            default:
                index += 1
            }
        }
    }

    /// Reads `uXXXX` (and a following low surrogate) after a backslash.
    private mutating func parseUnicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
        let first = try parseHexQuad()
        if (0xD800..<0xDC00).contains(first) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate in \\u escape") }
            index += 1
            let second = try parseHexQuad()
            guard (0xDC00..<0xE000).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw error("invalid surrogate pair in \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("invalid \\u escape") }
        return scalar
    }

    private mutating func parseHexQuad() throws(SyntaxError) -> UInt32 {
        index += 1
        let digits = bytes.count - index >= 4 ? Array(bytes[index..<(index + 4)]) : []
        guard digits.count == 4, digits.allSatisfy({ isHexDigit($0) }),
            let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        else { throw error("\\u must be followed by four hex digits") }
        index += 4
        return value
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}

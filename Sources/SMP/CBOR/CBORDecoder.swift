/// Decodes one CBOR item from bytes, strictly: a truncated item, a reserved or unsupported initial byte, a stray
/// break, invalid UTF-8, or trailing bytes is an error naming the byte offset (style §44: no parser that returns a
/// truncated result instead of a reason).
///
/// Definite and indefinite-length maps and arrays are both accepted (Zephyr's zcbor answers with `bf … ff`).
/// Lengths are checked against the bytes left before anything is allocated, so a hostile length costs nothing, and
/// a map that repeats a key is refused, as zcbor's decoder refuses it: a reader that took the first (or the last)
/// of two `off` or `hash` entries would be reading what the device did not mean.
package struct CBORDecoder: Sendable {
    /// The deepest nesting of maps and arrays accepted; SMP's deepest (image state: map, list, map) is 3.
    package var maximumDepth: Int

    /// Creates a decoder.
    ///
    /// - Parameter maximumDepth: The deepest container nesting accepted.
    package init(maximumDepth: Int = 16) {
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one item that fills `bytes`.
    ///
    /// - Parameter bytes: The encoded item.
    /// - Returns: The item.
    /// - Throws: ``CBORDecodingError``.
    package func decode(_ bytes: some Collection<UInt8>) throws(CBORDecodingError) -> CBORValue {
        var reader = Reader(bytes: Array(bytes), maximumDepth: maximumDepth)
        guard let value = try reader.item(depth: 0) else {
            throw .unexpectedBreak(offset: reader.position - 1)
        }
        if reader.position < reader.bytes.count {
            throw .trailingBytes(offset: reader.position, count: reader.bytes.count - reader.position)
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func byte() throws(CBORDecodingError) -> UInt8 {
            guard position < bytes.count else { throw .truncated(offset: position, needed: 1) }
            defer { position += 1 }
            return bytes[position]
        }

        /// The argument of a head whose initial byte's low five bits are `info` (0…27).
        mutating func argument(_ info: UInt8) throws(CBORDecodingError) -> UInt64 {
            let width: Int
            switch info {
            case 0..<24: return UInt64(info)
            case 24: width = 1
            case 25: width = 2
            case 26: width = 4
            default: width = 8
            }
            guard bytes.count - position >= width else {
                throw .truncated(offset: position, needed: width - (bytes.count - position))
            }
            var value: UInt64 = 0
            for index in position..<position + width { value = value << 8 | UInt64(bytes[index]) }
            position += width
            return value
        }

        /// A length argument, checked against the bytes that remain when each element takes at least
        /// `minimumElementSize` bytes.
        mutating func length(_ info: UInt8, at offset: Int, minimumElementSize: Int) throws(CBORDecodingError) -> Int {
            let raw = try argument(info)
            guard raw <= UInt64(Int.max / max(1, minimumElementSize)) else {
                throw .lengthTooLarge(offset: offset, length: raw)
            }
            let length = Int(raw)
            let needed = length * minimumElementSize
            if needed > bytes.count - position {
                throw .truncated(offset: position, needed: needed - (bytes.count - position))
            }
            return length
        }

        /// The next item, or `nil` for a break code (which only an indefinite container may accept).
        mutating func item(depth: Int) throws(CBORDecodingError) -> CBORValue? {
            let offset = position
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            if (28...30).contains(info) {
                throw .reservedAdditionalInformation(offset: offset, initialByte: initial)
            }
            switch major {
            case 0:
                guard info != 31 else {
                    throw .unsupported(offset: offset, initialByte: initial, what: "indefinite integer")
                }
                return .unsigned(try argument(info))
            case 1:
                guard info != 31 else {
                    throw .unsupported(offset: offset, initialByte: initial, what: "indefinite integer")
                }
                return .negative(try argument(info))
            case 2, 3:
                guard info != 31 else {
                    throw .unsupported(offset: offset, initialByte: initial, what: "a chunked string")
                }
                let count = try length(info, at: offset, minimumElementSize: 1)
                let slice = Array(bytes[position..<position + count])
                position += count
                if major == 2 { return .bytes(slice) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw .invalidUTF8(offset: offset) }
                return .text(text)
            case 4, 5:
                guard depth < maximumDepth else { throw .nestingTooDeep(offset: offset, limit: maximumDepth) }
                return major == 4
                    ? .array(try arrayItems(info, at: offset, depth: depth))
                    : .map(try mapEntries(info, at: offset, depth: depth))
            case 6:
                throw .unsupported(offset: offset, initialByte: initial, what: "a tag")
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 31: return nil
                case 25, 26, 27:
                    throw .unsupported(offset: offset, initialByte: initial, what: "a floating-point number")
                default:
                    throw .unsupported(offset: offset, initialByte: initial, what: "a simple value")
                }
            }
        }

        mutating func arrayItems(_ info: UInt8, at offset: Int, depth: Int) throws(CBORDecodingError) -> [CBORValue] {
            var items: [CBORValue] = []
            if info == 31 {
                while let item = try item(depth: depth + 1) { items.append(item) }
                return items
            }
            let count = try length(info, at: offset, minimumElementSize: 1)
            items.reserveCapacity(count)
            for _ in 0..<count {
                let itemOffset = position
                guard let item = try item(depth: depth + 1) else { throw .unexpectedBreak(offset: itemOffset) }
                items.append(item)
            }
            return items
        }

        mutating func mapEntries(_ info: UInt8, at offset: Int, depth: Int) throws(CBORDecodingError) -> [CBORMapEntry]
        {
            var entries: [CBORMapEntry] = []
            if info == 31 {
                var keys: Set<CBORValue> = []
                while true {
                    let keyOffset = position
                    guard let key = try item(depth: depth + 1) else { break }
                    let valueOffset = position
                    guard let value = try item(depth: depth + 1) else {
                        throw .mapKeyWithoutValue(offset: valueOffset)
                    }
                    guard keys.insert(key).inserted else { throw .duplicateKey(offset: keyOffset, key: key) }
                    entries.append(CBORMapEntry(key, value))
                }
                return entries
            }
            let count = try length(info, at: offset, minimumElementSize: 2)
            entries.reserveCapacity(count)
            var keys: Set<CBORValue> = []
            for _ in 0..<count {
                let keyOffset = position
                guard let key = try item(depth: depth + 1) else { throw .unexpectedBreak(offset: keyOffset) }
                let valueOffset = position
                guard let value = try item(depth: depth + 1) else { throw .unexpectedBreak(offset: valueOffset) }
                guard keys.insert(key).inserted else { throw .duplicateKey(offset: keyOffset, key: key) }
                entries.append(CBORMapEntry(key, value))
            }
            return entries
        }
    }
}

/// Why bytes are not one well-formed CBOR item of the subset SMP uses.
///
/// Every case carries the byte offset (from the start of the decoded buffer) where the problem was found.
package enum CBORDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended inside an item: `needed` more bytes were required at `offset`.
    case truncated(offset: Int, needed: Int)
    /// Additional information 28, 29 or 30, which RFC 8949 §3 reserves.
    case reservedAdditionalInformation(offset: Int, initialByte: UInt8)
    /// A well-formed item SMP never uses: a tag, a float, an undefined or other simple value, or a chunked
    /// (indefinite-length) string.
    case unsupported(offset: Int, initialByte: UInt8, what: String)
    /// A `ff` break code where no indefinite-length map or array is open.
    case unexpectedBreak(offset: Int)
    /// An indefinite-length map closed after a key with no value.
    case mapKeyWithoutValue(offset: Int)
    /// A text string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Containers nested deeper than the decoder allows.
    case nestingTooDeep(offset: Int, limit: Int)
    /// Bytes after the one top-level item.
    case trailingBytes(offset: Int, count: Int)
    /// A length that does not fit in memory on this platform.
    case lengthTooLarge(offset: Int, length: UInt64)
    /// A map key that an earlier entry of the same map already has (RFC 8949 §5.6: such a map is not valid, and
    /// zcbor refuses it).
    case duplicateKey(offset: Int, key: CBORValue)

    package var description: String {
        switch self {
        case .truncated(let offset, let needed):
            "CBOR ends inside an item at byte \(offset) (\(needed) more bytes needed)"
        case .reservedAdditionalInformation(let offset, let initialByte):
            "CBOR byte \(offset): initial byte 0x\(hex2(initialByte)) uses reserved additional information"
        case .unsupported(let offset, let initialByte, let what):
            "CBOR byte \(offset): \(what) (initial byte 0x\(hex2(initialByte))) is not used by SMP"
        case .unexpectedBreak(let offset):
            "CBOR byte \(offset): break code 0xff outside an indefinite-length map or array"
        case .mapKeyWithoutValue(let offset):
            "CBOR byte \(offset): indefinite-length map ends after a key with no value"
        case .invalidUTF8(let offset):
            "CBOR byte \(offset): text string is not valid UTF-8"
        case .nestingTooDeep(let offset, let limit):
            "CBOR byte \(offset): containers nested deeper than \(limit) levels"
        case .trailingBytes(let offset, let count):
            "CBOR has \(count) bytes after the item, from byte \(offset)"
        case .lengthTooLarge(let offset, let length):
            "CBOR byte \(offset): length \(length) is too large"
        case .duplicateKey(let offset, let key):
            "CBOR byte \(offset): map key \(key.briefDescription) appears twice in one map"
        }
    }
}

/// Two uppercase hex digits.
func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

/// Little-endian field access for wire messages: every Nordic DFU integer is little-endian.
enum LittleEndian {
    /// Returns the bytes of `value`, least-significant first.
    ///
    /// - Parameter value: A 32-bit field.
    /// - Returns: Four bytes.
    static func bytes(of value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
        ]
    }

    /// Returns the bytes of `value`, least-significant first.
    ///
    /// - Parameter value: A 16-bit field.
    /// - Returns: Two bytes.
    static func bytes(of value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// Reads a 32-bit field starting at `index`; the caller has checked the length.
    ///
    /// - Parameters:
    ///   - bytes: The message.
    ///   - index: The position of the least-significant byte.
    /// - Returns: The field's value.
    static func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
            | UInt32(bytes[index + 3]) << 24
    }

    /// Reads a 16-bit field starting at `index`; the caller has checked the length.
    ///
    /// - Parameters:
    ///   - bytes: The message.
    ///   - index: The position of the least-significant byte.
    /// - Returns: The field's value.
    static func uint16(_ bytes: [UInt8], at index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }
}

/// Formats a byte as `0x` and two uppercase hex digits, the way Nordic's documentation writes codes.
///
/// - Parameter byte: The byte.
/// - Returns: For example `0x0B`.
func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}

/// Formats bytes as space-separated uppercase hex pairs, as the protocol documents write them.
///
/// - Parameter bytes: The bytes.
/// - Returns: For example `60 06 01`.
func hexBytes(_ bytes: [UInt8]) -> String {
    bytes.map { String(hexByte($0).dropFirst(2)) }.joined(separator: " ")
}

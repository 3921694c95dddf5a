/// Everything that can be wrong with an Intel HEX input or a conversion request.
///
/// Each case carries the place and the values a user needs to fix the file; ``description`` is the one-line
/// message the CLI prints after `Error: `.
package enum HexConverterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input holds no bytes at all, or only blank lines.
    case emptyInput(source: String)
    /// A line does not begin with the record mark `:`.
    case missingRecordMark(HexLocation)
    /// A character that is not a hexadecimal digit.
    case invalidCharacter(HexLocation, character: UInt8)
    /// The digits after `:` do not pair up into bytes.
    case oddDigitCount(HexLocation, digits: Int)
    /// A record shorter than the five bytes every record has (count, address, type, checksum).
    case recordTooShort(HexLocation, bytes: Int)
    /// The byte count field disagrees with the number of bytes on the line.
    case byteCountMismatch(HexLocation, declared: Int, actual: Int)
    /// The record's checksum byte is wrong.
    case checksumMismatch(HexLocation, expected: UInt8, found: UInt8)
    /// A record type other than 00–05.
    case unknownRecordType(HexLocation, type: UInt8)
    /// An address or start record (02–05) whose length is not the one its type requires.
    case wrongRecordLength(HexLocation, type: UInt8, expected: Int, actual: Int)
    /// An end-of-file record (01) that carries data.
    case endOfFileWithData(HexLocation)
    /// A record after the end-of-file record.
    case dataAfterEndOfFile(HexLocation, endOfFileLine: Int)
    /// The input ends without an end-of-file record.
    case missingEndOfFile(source: String, lastLine: Int)
    /// A data record runs past the 4 GiB address space.
    case addressOverflow(HexLocation, address: UInt64)
    /// Two records put different bytes at the same address.
    case conflictingData(HexLocation, firstLine: Int, address: UInt32, first: UInt8, second: UInt8)
    /// The data would make a binary image larger than the limit.
    case imageTooLarge(source: String, low: HexRegion, high: HexRegion, limit: Int)
    /// The input has no data inside the requested range.
    case noData(source: String, range: AddressWindow)

    package var description: String {
        switch self {
        case .emptyInput(let source):
            return "\(source): file is empty (no records and no end-of-file record)"
        case .missingRecordMark(let location):
            return "\(location): line does not start with ':'"
        case .invalidCharacter(let location, let character):
            return "\(location): \(Self.describe(character)) is not a hexadecimal digit"
        case .oddDigitCount(let location, let digits):
            return "\(location): odd number of hex digits (\(digits)) after ':'"
        case .recordTooShort(let location, let bytes):
            return "\(location): record has \(bytes) bytes, fewer than the 5 every record needs"
        case .byteCountMismatch(let location, let declared, let actual):
            return "\(location): byte count says \(declared) data bytes, the line has \(actual)"
        case .checksumMismatch(let location, let expected, let found):
            return "\(location): record checksum is \(hex(found, width: 2)), expected \(hex(expected, width: 2))"
        case .unknownRecordType(let location, let type):
            return "\(location): unknown record type \(hex(type, width: 2)) (valid: 00–05)"
        case .wrongRecordLength(let location, let type, let expected, let actual):
            return "\(location): record type \(hex(type, width: 2)) must have \(expected) data bytes, has \(actual)"
        case .endOfFileWithData(let location):
            return "\(location): end-of-file record (type 01) carries data"
        case .dataAfterEndOfFile(let location, let endOfFileLine):
            return "\(location): record after the end-of-file record on line \(endOfFileLine)"
        case .missingEndOfFile(let source, let lastLine):
            return "\(source):\(lastLine): input ends without an end-of-file record (:00000001FF)"
        case .addressOverflow(let location, let address):
            return "\(location): data runs past the 4 GiB address space (to \(hex(address, width: 9)))"
        case .conflictingData(let location, let firstLine, let address, let first, let second):
            return "\(location): byte at \(hex(address, width: 8)) is \(hex(second, width: 2)) here but "
                + "\(hex(first, width: 2)) on line \(firstLine)"
        case .imageTooLarge(let source, let low, let high, let limit):
            return "\(source): data at \(low) and at \(high) would make a binary image over "
                + "\(limit >> 20) MiB; crop it at \(hex(high.start & 0xF000_0000, width: 8)) (BinaryImageOptions.end) "
                + "or drop the MBR and UICR regions (BinaryImageOptions.followsNordicTools)"
        case .noData(let source, let range):
            return "\(source): no data records \(range)"
        }
    }

    private static func describe(_ character: UInt8) -> String {
        if character >= 0x20 && character < 0x7F {
            return "'\(String(decoding: [character], as: UTF8.self))'"
        }
        return "byte \(hex(character, width: 2))"
    }
}

/// Formats `value` as `0x` followed by at least `width` uppercase hex digits.
///
/// - Parameters:
///   - value: The number to format.
///   - width: The minimum number of digits, zero-padded.
/// - Returns: The formatted number.
package func hex(_ value: some BinaryInteger, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

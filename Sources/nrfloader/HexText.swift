/// `0x00001000`: a number as uppercase hexadecimal, zero-padded to `width` digits, as the command line shows
/// addresses, ids and versions.
///
/// - Parameters:
///   - value: The number to format.
///   - width: The minimum number of digits, zero-padded.
/// - Returns: The formatted number.
func hex(_ value: some BinaryInteger, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `0a1b…`: bytes as lowercase hexadecimal digits, as digests are shown.
///
/// - Parameter bytes: The bytes to format.
/// - Returns: Two lowercase hex digits per byte, no separators.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

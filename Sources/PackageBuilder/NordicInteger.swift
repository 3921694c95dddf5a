/// nrfutil's integer arguments (`int_as_text_to_int`): `0x` then hexadecimal, a leading `0` then octal, otherwise
/// decimal; `none` (any case) where nrfutil accepts it means "not given".
package enum NordicInteger {
    /// Parses `text` as nrfutil does.
    ///
    /// - Parameters:
    ///   - text: The argument.
    ///   - option: The option's name, for the error (`--sd-req`).
    ///   - limit: The largest value the field holds.
    /// - Returns: The value.
    /// - Throws: ``PackageBuilderError/usage(_:)`` naming the option and the text.
    package static func parse(_ text: String, option: String, limit: UInt64 = 0xFFFF_FFFF) throws(PackageBuilderError)
        -> UInt64
    {
        var digits = Substring(text)
        var radix = 10
        if digits.lowercased().hasPrefix("0x") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.hasPrefix("0"), digits.count > 1 {
            digits = digits.dropFirst()
            radix = 8
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
            let value = UInt64(digits, radix: radix)
        else {
            throw .usage("\(option): \(text) is not a valid integer (0x for hexadecimal, a leading 0 for octal)")
        }
        guard value <= limit else {
            throw .usage(
                "\(option): \(text) is larger than the field holds (at most 0x\(String(limit, radix: 16, uppercase: true)))"
            )
        }
        return value
    }

    /// Parses a comma-separated list, as `--sd-req 0x0101,0x0124`.
    static func parseList(_ text: String, option: String, limit: UInt64) throws(PackageBuilderError) -> [UInt64] {
        var values: [UInt64] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            values.append(try parse(String(item), option: option, limit: limit))
        }
        return values
    }

    /// nrfutil's `--application-version-string`: `x.y.z` as `x * 10000 + y * 100 + z`.
    ///
    /// - Parameters:
    ///   - text: The version string.
    ///   - option: The option's name, for the error.
    /// - Returns: The integer version.
    /// - Throws: ``PackageBuilderError/usage(_:)`` unless the text is three decimal numbers whose sum fits 32 bits.
    package static func versionString(_ text: String, option: String = "--application-version-string")
        throws(PackageBuilderError) -> UInt32
    {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .usage("\(option): \(text) must be on the format x.y.z") }
        var total: UInt64 = 0
        for (part, weight) in zip(parts, [10000, 100, 1] as [UInt64]) {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt64(part),
                value <= 0xFFFF_FFFF
            else { throw .usage("\(option): \(text) must be on the format x.y.z (decimal numbers)") }
            total += value * weight
        }
        guard let version = UInt32(exactly: total) else {
            throw .usage("\(option): \(text) gives \(total), more than 32 bits hold")
        }
        return version
    }
}

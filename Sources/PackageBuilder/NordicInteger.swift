/// nrfutil's integer arguments (`int_as_text_to_int`): `0x` then hexadecimal, a leading `0` then octal, otherwise
/// decimal; `none` (any case) where nrfutil accepts it means "not given".
package enum NordicInteger {
    /// Parses `text` as nrfutil does.
    ///
    /// - Parameters:
    ///   - text: The argument.
    ///   - limit: The largest value the field holds.
    /// - Returns: The value.
    /// - Throws: ``NumberFault`` naming the text (the caller names the option).
    package static func parse(_ text: String, limit: UInt64 = 0xFFFF_FFFF) throws(NumberFault) -> UInt64 {
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
            throw .notAnInteger(text)
        }
        guard value <= limit else { throw .tooLarge(text, limit: limit) }
        return value
    }

    /// Parses a comma-separated list, as `0x0101,0x0124`.
    static func parseList(_ text: String, limit: UInt64) throws(NumberFault) -> [UInt64] {
        var values: [UInt64] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            values.append(try parse(String(item), limit: limit))
        }
        return values
    }

    /// nrfutil's application version string: `x.y.z` as `x * 10000 + y * 100 + z`.
    ///
    /// - Parameter text: The version string.
    /// - Returns: The integer version.
    /// - Throws: ``NumberFault`` unless the text is three decimal numbers whose sum fits 32 bits.
    package static func versionString(_ text: String) throws(NumberFault) -> UInt32 {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .notAVersionString(text) }
        var total: UInt64 = 0
        for (part, weight) in zip(parts, [10000, 100, 1] as [UInt64]) {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt64(part),
                value <= 0xFFFF_FFFF
            else { throw .versionNotDecimal(text) }
            total += value * weight
        }
        guard let version = UInt32(exactly: total) else { throw .versionTooLarge(text, total: total) }
        return version
    }
}

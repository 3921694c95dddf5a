import PackageBuilder

/// Numbers given the way nrfutil's command line takes them (`int_as_text_to_int`): `0x` then hexadecimal, a leading
/// `0` then octal, otherwise decimal.
public enum NrfutilInteger {
    /// Parses a 32-bit number as nrfutil does.
    ///
    /// - Parameters:
    ///   - text: The text, such as `0x3F000`.
    ///   - name: What the number is, for the message: the option or field it was given as.
    /// - Returns: The value.
    /// - Throws: ``UpdateError`` (``ExitStatus/usage``) naming `name` and the text.
    public static func parse(_ text: String, name: String) throws(UpdateError) -> UInt32 {
        do throws(NumberFault) { return UInt32(try NordicInteger.parse(text)) } catch {
            throw UpdateError(OptionError(message: "\(name): \(error)"), status: .usage)
        }
    }

    /// Parses a version string `x.y.z` as nrfutil's application version string: `x * 10000 + y * 100 + z`.
    ///
    /// - Parameters:
    ///   - text: The version string, such as `1.2.3`.
    ///   - name: What the version is, for the message: the option or field it was given as.
    /// - Returns: The integer version.
    /// - Throws: ``UpdateError`` (``ExitStatus/usage``) unless the text is three decimal numbers whose sum fits 32
    ///   bits.
    public static func parseVersionString(_ text: String, name: String) throws(UpdateError) -> UInt32 {
        do throws(NumberFault) { return try NordicInteger.versionString(text) } catch {
            throw UpdateError(OptionError(message: "\(name): \(error)"), status: .usage)
        }
    }
}

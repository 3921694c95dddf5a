extension String {
    /// The text with every C0 control character, DEL and C1 control character replaced by a visible `\xHH` escape,
    /// so that text from outside (device names, catalog fields, package entry names, file names, device error
    /// strings) cannot move the cursor, clear the screen or write the clipboard of the terminal it is printed on.
    ///
    /// This is the one escaping function of the command line: tables, `name: value` lines, progress labels and the
    /// `Error:` line all pass outside text through it. JSON output escapes the same characters as `\u00HH`.
    var escapedForTerminal: String {
        guard unicodeScalars.contains(where: \.isTerminalControl) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar.isTerminalControl {
                let digits = String(scalar.value, radix: 16)
                escaped += "\\x" + (digits.count < 2 ? "0" : "") + digits
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F): characters a terminal acts on instead of showing.
    var isTerminalControl: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }
}

extension String {
    /// The text right-aligned in `width` columns: spaces before it, none when it is already as wide.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}

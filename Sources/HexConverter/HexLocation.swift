/// A place in an Intel HEX source, shown as `FILE:LINE` or `FILE:LINE:COLUMN` in messages.
package struct HexLocation: Sendable, Equatable, CustomStringConvertible {
    /// The name the user knows the input by (a path, or `<stdin>`).
    package var source: String
    /// The 1-based line number.
    package var line: Int
    /// The 1-based column, where it helps to point at a character.
    package var column: Int?

    /// Creates a location.
    ///
    /// - Parameters:
    ///   - source: The name of the input.
    ///   - line: The 1-based line number.
    ///   - column: The 1-based column, if any.
    package init(source: String, line: Int, column: Int? = nil) {
        self.source = source
        self.line = line
        self.column = column
    }

    package var description: String {
        if let column { return "\(source):\(line):\(column)" }
        return "\(source):\(line)"
    }
}

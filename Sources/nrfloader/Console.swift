#if canImport(Glibc)
    import Glibc
#endif

/// The two text streams: stdout for the result, stderr for everything else (style §41).
enum Console {
    /// Writes `text` and a newline to standard output.
    static func result(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func note(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to standard error without a newline (progress redrawn in place).
    static func noteInline(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Prints a JSON document as one line on standard output.
    static func json(_ value: JSONValue) {
        result(value.text)
    }

    /// Whether `TERM` is `dumb`: no cursor movement, so progress is printed line by line.
    static var isDumbTerminal: Bool {
        guard let term = getenv("TERM") else { return false }
        return String(cString: term) == "dumb"
    }

    /// Whether the descriptor is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, base, remaining)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                base += written
                remaining -= written
            }
        }
    }
}

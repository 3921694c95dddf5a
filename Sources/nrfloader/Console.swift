import NRFLoaderKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The two text streams: stdout for the result, stderr for everything else (style §41).
enum Console {
    /// Writes `text` and a newline to standard output, unless the error verdict has ended it.
    static func result(_ text: String) {
        stdoutState.withLock { isEnded in
            if !isEnded { write(text + "\n", to: STDOUT_FILENO) }
        }
    }

    /// Whether stdout has been ended by the error verdict: a thread still rendering (an upload that an interrupt
    /// overtook) must not print after it, so that the verdict stays the last line.
    private static let stdoutState = Mutex(false)

    /// Writes `text` and a newline to standard error.
    static func note(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to standard error without a newline (progress redrawn in place).
    static func noteInline(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Prints a JSON line on standard output: a stream event at once, the command's result when it has succeeded.
    ///
    /// An object without an `event` key, or with `"event": "result"`, is the command's result: it gains
    /// `"event": "result"` and is held until ``finishWithResult()``, so that a command that fails after building its
    /// result (a signature check after `info` described the package) ends with its error object alone. An object with
    /// another `event` (`begin`, `progress`, a scanned `device`, …) is printed as it is.
    static func json(_ value: JSONValue) {
        guard case .object(var members) = value, members["event"] == nil || members["event"] == .string("result")
        else {
            result(value.text)
            return
        }
        members["event"] = .string("result")
        let text = JSONValue.object(members).text
        heldResult.withLock { $0 = text }
    }

    /// The result ``json(_:)`` holds until the command has succeeded.
    private static let heldResult = Mutex<String?>(nil)

    /// Prints the held result, if any: the last line of a command that succeeded.
    static func finishWithResult() {
        if let held = heldResult.withLock({ $0.take() }) { result(held) }
    }

    /// Whether the error verdict has been printed: the process prints it once, whichever of the command's error
    /// path and the interrupt watcher gets there first.
    private static let errorReported = Mutex(false)

    /// Reports a failure once, as `--json` promises.
    ///
    /// The `Error:` line goes to stderr and, when JSON was asked for, a final `error` object with the same message and
    /// the exit status to stdout. Only the first call prints anything.
    ///
    /// - Parameters:
    ///   - message: The message, before escaping.
    ///   - status: The status the process exits with.
    ///   - json: Whether `--json` was given.
    static func reportError(_ message: String, status: Int32, json: Bool) {
        let isFirst = errorReported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard isFirst else { return }
        let line = message.escapedForTerminal
        note("Error: " + line)
        guard json else { return }
        let verdict = UpdateJSONLines.errorObject(message: message, exitStatus: status)
        stdoutState.withLock { isEnded in
            write(verdict.text + "\n", to: STDOUT_FILENO)
            isEnded = true
        }
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

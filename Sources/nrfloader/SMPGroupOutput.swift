import NRFLoaderKit

/// The results of the management-group verbs (`os`, `fs`, `shell`, `stat`, `settings`, `enum`, `storage-erase`):
/// text on stdout, or with `--json` one `result` object.
///
/// Every object carries `event` (`result`), `schema`, `command` (`os taskstat`), `target` and `attempts`, as the
/// image verbs' objects do. Text that comes from the device is escaped before it reaches a terminal.
enum SMPGroupOutput {
    /// Prints a result: `text` (already escaped where it holds the device's text), or the object.
    ///
    /// - Parameters:
    ///   - command: The verb, as `command` names it.
    ///   - device: The device options (target, output mode).
    ///   - attempts: How many times the request went out.
    ///   - members: The verb's own members of the object.
    ///   - text: The human output, without its final newline; `nil` prints nothing.
    static func emit(
        _ command: String, _ device: SMPTargetOptions, attempts: Int, _ members: [String: JSONValue], text: String?
    ) {
        if device.output.json {
            Console.json(
                .object(
                    members.merging([
                        "event": .string("result"), "schema": .int(JSONValue.schemaVersion),
                        "command": .string(command), "target": .string(device.label), "attempts": .int(attempts),
                    ]) { own, _ in own }))
        } else if let text {
            Console.result(text)
        }
    }

    /// Two lowercase hex digits per byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// Device text of several lines, each line escaped, carriage returns before a newline dropped.
    static func lines(_ text: String) -> String {
        // By scalars: "\r\n" is one Character, so a split on "\n" would not see it.
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if line.last == "\r" { line.removeLast() }
                lines.append(String(line).escapedForTerminal)
                line = String.UnicodeScalarView()
            } else {
                line.append(scalar)
            }
        }
        lines.append(String(line).escapedForTerminal)
        return lines.joined(separator: "\n")
    }

    /// A number as JSON (values past `Int.max` are clamped; statistics are 32-bit on Zephyr).
    static func number(_ value: UInt64) -> JSONValue { .int(Int(clamping: value)) }
}

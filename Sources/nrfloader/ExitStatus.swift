/// The process exit statuses, following sysexits(3) so a CI job can tell "fix the input" (64–66) from "try again"
/// (75).
///
/// This enum is the single source: `--help` prints ``helpTable``, and README.md repeats it.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case cannotCreate = 73
    case ioError = 74
    case temporaryFailure = 75
    case protocolError = 76
    case interrupted = 130

    /// What the status means, for the table in `--help`.
    var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage: unknown option, bad value, missing argument, ambiguous --name"
        case .dataError: "bad input data: hex, zip, catalog or init packet"
        case .noInput: "input missing or unreadable"
        case .unavailable: "unavailable: no BlueZ, no adapter, device not found"
        case .software: "internal error (a bug: please report it)"
        case .cannotCreate: "cannot create the output file"
        case .ioError: "I/O error while reading or writing"
        case .temporaryFailure: "temporary failure: link lost or timed out (a retry may succeed)"
        case .protocolError: "the device rejected or broke the DFU protocol"
        case .interrupted: "interrupted (Ctrl-C or SIGTERM), after cleaning up"
        }
    }

    /// The table printed at the end of `nrfloader --help`.
    static var helpTable: String {
        "EXIT STATUS:\n"
            + allCases.map { "  \(String($0.rawValue).leftPadded(to: 3))  \($0.meaning)" }.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}

import NRFLoaderKit

extension ExitStatus {
    /// The status for an error that reached the top of a command: the library's `UpdateError` carries its own, the
    /// command line's errors map here, and anything else is a bug.
    init(for error: any Error) {
        switch error {
        case let error as UpdateError: self = error.exitStatus
        case let error as ToolError: self = error.exitStatus
        case is FleetTargetListError: self = .usage
        default: self = .software
        }
    }

    /// The table printed at the end of `nrfloader --help`.
    static var helpTable: String {
        "EXIT STATUS:\n"
            + allCases.map { "  \(String($0.rawValue).leftPadded(to: 3))  \($0.commandLineMeaning)" }
            .joined(separator: "\n")
    }

    /// What the status means, as the command line says it: an ambiguous device name is its `--name`.
    var commandLineMeaning: String {
        self == .usage ? "usage: unknown option, bad value, missing argument, ambiguous --name" : meaning
    }
}

package import DeviceLink

/// What an ``UpdateError`` means for the program that met it, as `nrfloader`'s exit statuses say it: following
/// sysexits(3), so that a CI job can tell "fix the input" (64–66) from "try again" (75).
///
/// This enum is the single source: `nrfloader --help` prints its table, and README.md repeats it.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The update completed.
    case success = 0
    /// A usage error: a bad option value, a missing argument, an ambiguous device name.
    case usage = 64
    /// Bad input data: a HEX file, package, catalog, image or init packet.
    case dataError = 65
    /// The input is missing or unreadable.
    case noInput = 66
    /// A part of the system is missing: no BlueZ, no adapter, no device, a busy port.
    case unavailable = 69
    /// An internal error (a bug).
    case software = 70
    /// An output file cannot be created.
    case cannotCreate = 73
    /// Reading or writing failed.
    case ioError = 74
    /// The link was lost or a wait timed out: a retry may succeed.
    case temporaryFailure = 75
    /// The device rejected the update or broke the protocol.
    case protocolError = 76
    /// The update was cancelled, after telling the device.
    case interrupted = 130

    /// What the status means, as the table in `nrfloader --help` says it.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage: unknown option, bad value, missing argument, ambiguous device name"
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
}

extension LinkError {
    /// The exit status of a link failure, the same for every protocol and transport: 69 when the stack, the port or
    /// the device was never there, 76 for a device that answered with an error, 75 for what a retry may mend.
    ///
    /// - Parameter deviceWasReached: Whether any connection to the device succeeded: a device that vanished
    ///   afterwards is a temporary failure, one never found is unavailable.
    /// - Returns: The status.
    package func exitStatus(deviceWasReached: Bool) -> ExitStatus {
        switch kind {
        case .deviceNotFound: deviceWasReached ? .temporaryFailure : .unavailable
        case .unavailable: .unavailable
        case .rejected: .protocolError
        case .linkLost, .timedOut, .failed: .temporaryFailure
        }
    }
}

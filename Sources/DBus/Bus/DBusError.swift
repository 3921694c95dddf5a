/// Why a D-Bus operation failed.
package enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bus could not be reached: `name` and `message` are libdbus's (for example
    /// `org.freedesktop.DBus.Error.FileNotFound` when no daemon listens at the address).
    case connectionFailed(name: String, message: String)
    /// The connection is closed, or the bus dropped it.
    case disconnected
    /// No reply arrived within the call's timeout.
    case timedOut(member: String, timeout: Duration)
    /// The task waiting for the reply was cancelled; the call was abandoned.
    case cancelled
    /// The peer (or the bus) answered with an error reply.
    case errorReply(name: String, message: String)
    /// An argument cannot be put on the wire (for example a string with a NUL character).
    case invalidArgument(String)

    /// The D-Bus error name, when the failure has one.
    package var name: String? {
        switch self {
        case .connectionFailed(let name, _), .errorReply(let name, _): name
        case .disconnected: "org.freedesktop.DBus.Error.Disconnected"
        case .timedOut: "org.freedesktop.DBus.Error.NoReply"
        case .cancelled, .invalidArgument: nil
        }
    }

    package var description: String {
        switch self {
        case .connectionFailed(let name, let message): "cannot connect to the d-bus bus: \(message) (\(name))"
        case .disconnected: "the d-bus connection is closed"
        case .timedOut(let member, let timeout): "no reply to '\(member)' within \(timeout)"
        case .cancelled: "the d-bus call was cancelled"
        case .errorReply(let name, let message): message.isEmpty ? name : "\(message) (\(name))"
        case .invalidArgument(let reason): "invalid d-bus argument: \(reason)"
        }
    }

    /// Well-known error names of the bus itself.
    package enum Names {
        /// No process owns the destination name.
        package static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        /// The name has no owner (GetNameOwner).
        package static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The bus policy refused the message.
        package static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        /// The object has no such method.
        package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        /// No object at the path.
        package static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        /// The arguments do not fit the method.
        package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        /// Generic failure.
        package static let failed = "org.freedesktop.DBus.Error.Failed"
    }
}

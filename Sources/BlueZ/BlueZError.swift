package import DBus

/// What went wrong talking to BlueZ, in BlueZ's own vocabulary (style.md §15).
///
/// The first cases are the ones a user fixes outside the tool (exit 69 in the CLI); the `org.bluez.Error.*` cases
/// mirror BlueZ's error names and keep the D-Bus error as their cause.
package enum BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system bus cannot be reached at all.
    case busUnavailable(DBusError)
    /// Nobody owns `org.bluez` on the system bus: bluetoothd is not running.
    case notRunning(DBusError)
    /// The bus policy refused the call: the user may not talk to BlueZ.
    case permissionDenied(DBusError)
    /// No adapter exists (`requested` is nil), or none named `requested` (`hci1`).
    case noAdapter(requested: String?)
    /// The adapter exists but is powered off.
    case adapterPoweredOff(String)

    /// `org.bluez.Error.InProgress`.
    case inProgress(DBusError)
    /// `org.bluez.Error.NotPermitted`.
    case notPermitted(DBusError)
    /// `org.bluez.Error.NotConnected`.
    case notConnected(DBusError)
    /// `org.bluez.Error.NotReady`.
    case notReady(DBusError)
    /// `org.bluez.Error.NotSupported`.
    case notSupported(DBusError)
    /// `org.bluez.Error.NotAuthorized`.
    case notAuthorized(DBusError)
    /// `org.bluez.Error.NotAvailable`.
    case notAvailable(DBusError)
    /// `org.bluez.Error.DoesNotExist`.
    case doesNotExist(DBusError)
    /// `org.bluez.Error.AlreadyExists`.
    case alreadyExists(DBusError)
    /// `org.bluez.Error.AlreadyConnected`.
    case alreadyConnected(DBusError)
    /// `org.bluez.Error.InvalidArguments`.
    case invalidArguments(DBusError)
    /// `org.bluez.Error.InvalidValueLength`.
    case invalidValueLength(DBusError)
    /// `org.bluez.Error.InvalidOffset`.
    case invalidOffset(DBusError)
    /// `org.bluez.Error.ConnectionAttemptFailed`.
    case connectionAttemptFailed(DBusError)
    /// `org.bluez.Error.Failed`.
    case failed(DBusError)
    /// A D-Bus failure that is none of the above: a timeout, a lost connection, cancellation, or an error name
    /// BlueZ added after this list was written.
    case bus(DBusError)

    /// Sorts a D-Bus failure of a call to BlueZ into its case.
    ///
    /// - Parameter error: The D-Bus failure.
    package init(_ error: DBusError) {
        guard case .errorReply(let name, _) = error else {
            if case .connectionFailed = error { self = .busUnavailable(error) } else { self = .bus(error) }
            return
        }
        switch name {
        case DBusError.Names.serviceUnknown, DBusError.Names.nameHasNoOwner:
            // About a unique name (`The name :1.12 was not provided…`): a peer BlueZ relayed to has left (bluezoo
            // passes a vanished GATT server's error through), not BlueZ itself, which is only ever called by name.
            guard case .errorReply(_, let message) = error, !message.contains("name :") else {
                self = .bus(error)
                return
            }
            self = .notRunning(error)
        case DBusError.Names.accessDenied: self = .permissionDenied(error)
        case "org.bluez.Error.InProgress": self = .inProgress(error)
        case "org.bluez.Error.NotPermitted": self = .notPermitted(error)
        case "org.bluez.Error.NotConnected": self = .notConnected(error)
        case "org.bluez.Error.NotReady": self = .notReady(error)
        case "org.bluez.Error.NotSupported": self = .notSupported(error)
        case "org.bluez.Error.NotAuthorized": self = .notAuthorized(error)
        case "org.bluez.Error.NotAvailable": self = .notAvailable(error)
        case "org.bluez.Error.DoesNotExist": self = .doesNotExist(error)
        case "org.bluez.Error.AlreadyExists": self = .alreadyExists(error)
        case "org.bluez.Error.AlreadyConnected": self = .alreadyConnected(error)
        case "org.bluez.Error.InvalidArguments": self = .invalidArguments(error)
        case "org.bluez.Error.InvalidValueLength": self = .invalidValueLength(error)
        case "org.bluez.Error.InvalidOffset": self = .invalidOffset(error)
        case "org.bluez.Error.ConnectionAttemptFailed": self = .connectionAttemptFailed(error)
        case "org.bluez.Error.Failed": self = .failed(error)
        default: self = .bus(error)
        }
    }

    /// The D-Bus failure behind the error, if there is one.
    package var cause: DBusError? {
        switch self {
        case .noAdapter, .adapterPoweredOff: nil
        case .busUnavailable(let cause), .notRunning(let cause), .permissionDenied(let cause), .inProgress(let cause),
            .notPermitted(let cause), .notConnected(let cause), .notReady(let cause), .notSupported(let cause),
            .notAuthorized(let cause), .notAvailable(let cause), .doesNotExist(let cause),
            .alreadyExists(let cause), .alreadyConnected(let cause), .invalidArguments(let cause),
            .invalidValueLength(let cause), .invalidOffset(let cause), .connectionAttemptFailed(let cause),
            .failed(let cause), .bus(let cause):
            cause
        }
    }

    package var description: String {
        switch self {
        case .busUnavailable(let cause): "the system d-bus is not reachable: \(cause)"
        case .notRunning: "bluetooth is not available: bluez (org.bluez) is not running on the system bus"
        case .permissionDenied: "permission denied talking to bluez: the d-bus policy refuses this user"
        case .noAdapter(nil): "no bluetooth adapter found"
        case .noAdapter(let name?): "no bluetooth adapter named '\(name)'"
        case .adapterPoweredOff(let name): "bluetooth adapter '\(name)' is powered off"
        case .inProgress(let cause), .notPermitted(let cause), .notConnected(let cause), .notReady(let cause),
            .notSupported(let cause), .notAuthorized(let cause), .notAvailable(let cause),
            .doesNotExist(let cause), .alreadyExists(let cause), .alreadyConnected(let cause),
            .invalidArguments(let cause), .invalidValueLength(let cause), .invalidOffset(let cause),
            .connectionAttemptFailed(let cause), .failed(let cause), .bus(let cause):
            "bluez: \(cause)"
        }
    }
}

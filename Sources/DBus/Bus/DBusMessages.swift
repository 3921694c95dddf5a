/// Which bus to connect to.
package enum BusAddress: Sendable, Hashable {
    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` if set, else libdbus's default socket. BlueZ lives here.
    case system
    /// A bus at an explicit address such as `unix:path=/tmp/x/bus` (tests run a private daemon each).
    case address(String)
}

/// A signal received from the bus.
package struct DBusSignal: Sendable, Hashable {
    /// The unique name (`:1.42`) of the connection that sent it.
    package var sender: String
    /// The object it concerns.
    package var path: String
    /// Its interface.
    package var interface: String
    /// Its name.
    package var member: String
    /// Its arguments.
    package var arguments: [DBusValue]
}

/// A method call that arrived at an object this connection exports.
package struct DBusMethodCall: Sendable, Hashable {
    /// The caller's unique name.
    package var sender: String?
    /// The object called.
    package var path: String
    /// The interface named by the caller, if it named one.
    package var interface: String?
    /// The method.
    package var member: String
    /// The arguments.
    ///
    /// Unix fds in them are closed after the handler returns; duplicate one to keep it.
    package var arguments: [DBusValue]
    /// Identifies the call for a later ``BusConnection/reply(toCall:with:)`` when the handler answered
    /// ``DBusMethodReply/deferred``.
    package var id: UInt64
}

/// What an exported object answers to a ``DBusMethodCall``.
package enum DBusMethodReply: Sendable, Hashable {
    /// A method return with these values.
    case returning([DBusValue])
    /// An error reply with this name (such as `org.bluez.Error.NotPermitted`) and message.
    case error(name: String, message: String)
    /// No reply yet: the handler answers later with ``BusConnection/reply(toCall:with:)``, or never (the caller
    /// then sees its own timeout, as with a peer that stopped answering).
    case deferred
}

/// Which signals a subscription wants, as a D-Bus match rule (D-Bus specification, "Match Rules").
///
/// Every field left `nil` matches anything. The bus filters by the rule, and the connection filters again so
/// that each subscription sees only its own signals.
package struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// A unique name (`:1.5`) or a well-known name (`org.bluez`), tracked to its current owner.
    package var sender: String?
    /// Exactly this object path.
    package var path: String?
    /// This object path or one below it.
    package var pathNamespace: String?
    /// The signal's interface.
    package var interface: String?
    /// The signal's name.
    package var member: String?
    /// The first argument, which must be a string equal to this.
    package var arg0: String?

    /// Creates a rule.
    package init(
        sender: String? = nil,
        path: String? = nil,
        pathNamespace: String? = nil,
        interface: String? = nil,
        member: String? = nil,
        arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule in the bus's text form: `type='signal',sender='org.bluez',member='InterfacesAdded'`.
    package var description: String {
        var parts = ["type='signal'"]
        let fields: [(String, String?)] = [
            ("sender", sender), ("path", path), ("path_namespace", pathNamespace), ("interface", interface),
            ("member", member), ("arg0", arg0),
        ]
        for (key, value) in fields {
            guard let value else { continue }
            parts.append("\(key)=\(Self.quoted(value))")
        }
        return parts.joined(separator: ",")
    }

    /// A value in single quotes; an apostrophe becomes `'\''` (quotes end, escaped apostrophe, quotes resume).
    private static func quoted(_ value: String) -> String {
        "'" + value.replacingApostrophes() + "'"
    }

    /// Whether the rule's sender is a well-known name that has to be tracked to its owner.
    var hasWellKnownSender: Bool {
        guard let sender else { return false }
        return !sender.hasPrefix(":") && sender != "org.freedesktop.DBus"
    }

    /// Whether a signal matches, given the current owner of a well-known sender.
    func matches(
        sender signalSender: String?, path signalPath: String?, interface signalInterface: String?,
        member signalMember: String?, firstArgument: () -> String?, owner: (String) -> String?
    ) -> Bool {
        if let sender {
            if hasWellKnownSender {
                guard let current = owner(sender), current == signalSender else { return false }
            } else if sender == "org.freedesktop.DBus" {
                guard signalSender == sender else { return false }
            } else if sender != signalSender {
                return false
            }
        }
        if let path, path != signalPath { return false }
        if let pathNamespace {
            guard let signalPath else { return false }
            let isInside =
                pathNamespace == "/" || signalPath == pathNamespace || signalPath.hasPrefix(pathNamespace + "/")
            if !isInside { return false }
        }
        if let interface, interface != signalInterface { return false }
        if let member, member != signalMember { return false }
        if let arg0, arg0 != firstArgument() { return false }
        return true
    }
}

extension String {
    fileprivate func replacingApostrophes() -> String {
        var result = ""
        for character in self {
            if character == "'" { result += "'\\''" } else { result.append(character) }
        }
        return result
    }
}

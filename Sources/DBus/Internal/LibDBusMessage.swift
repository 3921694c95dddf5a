import CDBus

/// An owned reference to a libdbus `DBusMessage`.
///
/// Lives on the loop thread only: it is created, filled, sent, read and released there.
final class LibDBusMessage {
    let raw: OpaquePointer

    /// Takes over one reference to `raw`.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// A method call message.
    static func methodCall(destination: String?, path: String, interface: String?, member: String) -> LibDBusMessage {
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            preconditionFailure("libdbus is out of memory building a call to \(member)")
        }
        return LibDBusMessage(adopting: raw)
    }

    /// A signal message.
    static func signal(path: String, interface: String, member: String) -> LibDBusMessage {
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            preconditionFailure("libdbus is out of memory building signal \(member)")
        }
        return LibDBusMessage(adopting: raw)
    }

    /// A method return answering `call`.
    static func methodReturn(to call: OpaquePointer) -> LibDBusMessage {
        guard let raw = dbus_message_new_method_return(call) else {
            preconditionFailure("libdbus is out of memory building a method return")
        }
        return LibDBusMessage(adopting: raw)
    }

    /// An error reply answering `call`.
    static func errorReply(to call: OpaquePointer, name: String, message: String) -> LibDBusMessage {
        guard let raw = dbus_message_new_error(call, name, message) else {
            preconditionFailure("libdbus is out of memory building error reply \(name)")
        }
        return LibDBusMessage(adopting: raw)
    }

    /// Whether the call wants a reply.
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// Asks the receiver not to reply.
    func setNoReply() { dbus_message_set_no_reply(raw, 1) }

    /// The message's header fields.
    var header: MessageHeader { MessageHeader(raw) }

    /// Appends `values`, checked against their types first.
    ///
    /// - Throws: ``DBusError/invalidArgument(_:)`` before anything is appended.
    func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try ValueValidator.validate(value) }
        let iterator = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { iterator.deallocate() }
        dbus_message_iter_init_append(raw, iterator)
        for value in values { MessageWriter.append(value, to: iterator) }
    }

    /// Reads every argument.
    func arguments() -> [DBusValue] {
        let iterator = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { iterator.deallocate() }
        guard dbus_message_iter_init(raw, iterator) != 0 else { return [] }
        return MessageReader.readAll(iterator)
    }
}

@available(*, unavailable)
extension LibDBusMessage: Sendable {}

/// The header fields of a message, copied out as Swift strings.
struct MessageHeader {
    var type: Int32
    var sender: String?
    var destination: String?
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?

    init(_ raw: OpaquePointer) {
        type = dbus_message_get_type(raw)
        sender = dbus_message_get_sender(raw).map { String(cString: $0) }
        destination = dbus_message_get_destination(raw).map { String(cString: $0) }
        path = dbus_message_get_path(raw).map { String(cString: $0) }
        interface = dbus_message_get_interface(raw).map { String(cString: $0) }
        member = dbus_message_get_member(raw).map { String(cString: $0) }
        errorName = dbus_message_get_error_name(raw).map { String(cString: $0) }
    }

    var isSignal: Bool { type == DBUS_MESSAGE_TYPE_SIGNAL }
    var isError: Bool { type == DBUS_MESSAGE_TYPE_ERROR }
    var isMethodCall: Bool { type == DBUS_MESSAGE_TYPE_METHOD_CALL }
}

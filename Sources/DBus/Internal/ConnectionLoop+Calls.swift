import CDBus

/// A method call waiting for its reply.
struct PendingCall {
    let raw: OpaquePointer
    let member: String
    let timeout: Duration
    let deadline: ContinuousClock.Instant
    let completion: (Result<[DBusValue], DBusError>) -> Void
}

/// What a pending call's notification needs to find its call again; freed by libdbus with the pending call.
private final class CallTag {
    unowned let loop: ConnectionLoop
    let id: UInt64

    init(loop: ConnectionLoop, id: UInt64) {
        self.loop = loop
        self.id = id
    }
}

/// A method call as the public API describes it, before libdbus sees it.
struct CallRequest: Sendable {
    var destination: String?
    var path: String
    var interface: String?
    var member: String
    var arguments: [DBusValue]
}

extension ConnectionLoop {
    /// Sends a call; `completion` runs on the loop thread with the reply, an error reply, or a local failure.
    ///
    /// The loop's own clock enforces `timeout` (libdbus gets an infinite one), so that a `NoReply` error from
    /// the bus (the peer left without answering) is never mistaken for our deadline.
    func startCall(
        id: UInt64,
        _ request: CallRequest,
        timeout: Duration,
        completion: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) {
        if cancelledBeforeStart.remove(id) != nil { return completion(.failure(.cancelled)) }
        guard let connection, isConnected else { return completion(.failure(.disconnected)) }
        guard ValueValidator.isValidObjectPath(request.path) else {
            return completion(.failure(.invalidArgument("'\(request.path)' is not an object path")))
        }
        let message = LibDBusMessage.methodCall(
            destination: request.destination, path: request.path, interface: request.interface,
            member: request.member)
        do {
            try message.append(request.arguments)
        } catch {
            return completion(.failure(error))
        }
        var pending: OpaquePointer?
        let sent = dbus_connection_send_with_reply(connection, message.raw, &pending, CDBUS_TIMEOUT_INFINITE)
        guard sent != 0, let pending else { return completion(.failure(.disconnected)) }
        let tag = Unmanaged.passRetained(CallTag(loop: self, id: id)).toOpaque()
        pendingCalls[id] = PendingCall(
            raw: pending, member: request.member, timeout: timeout, deadline: deadline(after: timeout),
            completion: completion)
        let installed = dbus_pending_call_set_notify(
            pending,
            { pending, context in
                guard let pending, let context else { return }
                let tag = Unmanaged<CallTag>.fromOpaque(context).takeUnretainedValue()
                tag.loop.completeCall(tag.id, pending)
            },
            tag,
            { context in
                guard let context else { return }
                Unmanaged<CallTag>.fromOpaque(context).release()
            })
        precondition(installed != 0, "libdbus is out of memory installing a reply notification")
        // The reply may have arrived before the notification was installed.
        if dbus_pending_call_get_completed(pending) != 0 { completeCall(id, pending) }
    }

    /// Sends a message that wants no reply (a signal, or a call marked no-reply).
    func sendWithoutReply(_ message: LibDBusMessage) -> Bool {
        guard let connection, isConnected else { return false }
        return dbus_connection_send(connection, message.raw, nil) != 0
    }

    /// Gives up on a call: `abandonCall` for cancellation, or a deadline.
    func abandonCall(_ id: UInt64, with error: DBusError) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        dbus_pending_call_cancel(call.raw)
        dbus_pending_call_unref(call.raw)
        call.completion(.failure(error))
    }

    /// Cancels a call by id, also one whose start job has not run yet.
    func cancelCall(_ id: UInt64) {
        if pendingCalls[id] != nil {
            abandonCall(id, with: .cancelled)
        } else {
            cancelledBeforeStart.insert(id)
        }
    }

    fileprivate func completeCall(_ id: UInt64, _ pending: OpaquePointer) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        let reply = dbus_pending_call_steal_reply(pending).map { LibDBusMessage(adopting: $0) }
        dbus_pending_call_unref(call.raw)
        guard let reply else { return call.completion(.failure(.disconnected)) }
        let header = reply.header
        let arguments = reply.arguments()
        if header.isError {
            let name = header.errorName ?? DBusError.Names.failed
            if name == "org.freedesktop.DBus.Error.Disconnected" { return call.completion(.failure(.disconnected)) }
            let text = arguments.first?.stringValue ?? ""
            return call.completion(.failure(.errorReply(name: name, message: text)))
        }
        call.completion(.success(arguments))
    }
}

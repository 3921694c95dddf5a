import CDBus

#if canImport(Glibc)
    import Glibc
#endif

extension ConnectionLoop {
    /// Exports an object: method calls to `path` run `handler` on the loop thread.
    func export(path: String, handler: @escaping @Sendable (DBusMethodCall) -> DBusMethodReply) -> DBusError? {
        guard let connection, isConnected else { return .disconnected }
        guard ValueValidator.isValidObjectPath(path) else { return .invalidArgument("'\(path)' is not an object path") }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        var vtable = DBusObjectPathVTable()
        vtable.message_function = { _, message, context in
            guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let loop = Unmanaged<ConnectionLoop>.fromOpaque(context).takeUnretainedValue()
            return loop.handleMethodCall(message)
        }
        // libdbus copies the vtable (swift-stack.md §1).
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard dbus_connection_try_register_object_path(connection, path, &vtable, context, &error) != 0 else {
            return .errorReply(
                name: error.name.map { String(cString: $0) } ?? DBusError.Names.failed,
                message: error.message.map { String(cString: $0) } ?? "cannot export '\(path)'")
        }
        exports[path] = handler
        return nil
    }

    /// Stops exporting `path`.
    func unexport(path: String) {
        guard exports.removeValue(forKey: path) != nil, let connection else { return }
        _ = dbus_connection_unregister_object_path(connection, path)
    }

    fileprivate func handleMethodCall(_ raw: OpaquePointer) -> DBusHandlerResult {
        let message = LibDBusMessage(adopting: dbus_message_ref(raw))
        let header = message.header
        guard header.isMethodCall, let path = header.path, let member = header.member,
            let handler = exports[path]
        else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let arguments = message.arguments()
        let id = nextID()
        let reply = handler(
            DBusMethodCall(
                sender: header.sender, path: path, interface: header.interface, member: member,
                arguments: arguments, id: id))
        if message.expectsReply {
            if case .deferred = reply {
                deferredCalls[id] = message
            } else {
                answer(message, with: reply)
            }
        }
        closeDescriptors(in: arguments)
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Sends the reply to a call whose handler deferred it; a call already answered or unknown is ignored.
    func answerDeferred(_ id: UInt64, with reply: DBusMethodReply) {
        if case .deferred = reply { return }
        guard let message = deferredCalls.removeValue(forKey: id) else { return }
        answer(message, with: reply)
    }

    private func answer(_ call: LibDBusMessage, with reply: DBusMethodReply) {
        let answer: LibDBusMessage
        switch reply {
        case .returning(let values):
            let built = LibDBusMessage.methodReturn(to: call.raw)
            do {
                try built.append(values)
                answer = built
            } catch {
                answer = LibDBusMessage.errorReply(
                    to: call.raw, name: DBusError.Names.failed, message: "the reply cannot be sent: \(error)")
            }
        case .error(let name, let text):
            answer = LibDBusMessage.errorReply(to: call.raw, name: name, message: text)
        case .deferred:
            return
        }
        _ = sendWithoutReply(answer)
    }

    /// Emits a signal from an exported object.
    func emit(path: String, interface: String, member: String, arguments: [DBusValue]) -> DBusError? {
        guard isConnected else { return .disconnected }
        guard ValueValidator.isValidObjectPath(path) else { return .invalidArgument("'\(path)' is not an object path") }
        let message = LibDBusMessage.signal(path: path, interface: interface, member: member)
        do {
            try message.append(arguments)
        } catch {
            return error
        }
        return sendWithoutReply(message) ? nil : .disconnected
    }

    private func closeDescriptors(in values: [DBusValue]) {
        for value in values {
            switch value {
            case .unixFD(let descriptor): close(descriptor)
            case .array(_, let elements), .structure(let elements): closeDescriptors(in: elements)
            case .dictionary(_, _, let entries): closeDescriptors(in: entries.flatMap { [$0.key, $0.value] })
            case .variant(let inner): closeDescriptors(in: [inner])
            default: continue
            }
        }
    }
}

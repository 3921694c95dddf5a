/// A connection to a D-Bus bus, with an async face.
///
/// A dedicated thread owns the libdbus connection and makes every libdbus call (style.md §26); the methods here
/// hand it jobs and await their results, so nothing on the Swift cooperative pool blocks or touches libdbus.
///
/// The connection closes when ``close()`` is called or when the last reference goes away.
package final class BusConnection: Sendable {
    private let loop: ConnectionLoop
    /// The connection's unique name on the bus (`:1.42`).
    package let uniqueName: String

    private init(loop: ConnectionLoop, uniqueName: String) {
        self.loop = loop
        self.uniqueName = uniqueName
    }

    deinit {
        loop.shutDown()
    }

    /// Connects to a bus.
    ///
    /// - Parameter address: ``BusAddress/system`` (honouring `DBUS_SYSTEM_BUS_ADDRESS`) or an explicit address.
    /// - Returns: The open connection.
    /// - Throws: ``DBusError/connectionFailed(name:message:)``.
    package static func open(_ address: BusAddress) async throws(DBusError) -> BusConnection {
        let loop = ConnectionLoop()
        let result: Result<String, DBusError> = await withCheckedContinuation { continuation in
            loop.start { loop in
                if let error = loop.open(address) {
                    loop.shutDown()
                    continuation.resume(returning: .failure(error))
                } else {
                    continuation.resume(returning: .success(loop.uniqueName ?? ""))
                }
            }
        }
        return BusConnection(loop: loop, uniqueName: try result.get())
    }

    /// Closes the connection: calls in flight fail with ``DBusError/disconnected``, signal streams end.
    package func close() {
        loop.shutDown()
    }

    /// Calls a method and waits for its reply.
    ///
    /// Cancelling the task abandons the call (its reply, if one comes, is dropped) and throws
    /// ``DBusError/cancelled``.
    ///
    /// - Parameters:
    ///   - destination: The bus name of the peer (`org.bluez`).
    ///   - path: The object.
    ///   - interface: The interface (`org.bluez.Adapter1`).
    ///   - member: The method.
    ///   - arguments: The arguments, in order.
    ///   - timeout: How long to wait for the reply.
    /// - Returns: The reply's values.
    /// - Throws: ``DBusError``: an error reply with its name and message, a timeout, cancellation, a lost
    ///   connection, or an argument that cannot be sent.
    package func call(
        destination: String?,
        path: String,
        interface: String?,
        member: String,
        arguments: [DBusValue] = [],
        timeout: Duration
    ) async throws(DBusError) -> [DBusValue] {
        let request = CallRequest(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        let id = loop.nextID()
        let loop = self.loop
        let result: Result<[DBusValue], DBusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let accepted = loop.enqueue { loop in
                    loop.startCall(id: id, request, timeout: timeout) { continuation.resume(returning: $0) }
                }
                if !accepted { continuation.resume(returning: .failure(.disconnected)) }
            }
        } onCancel: {
            loop.enqueue { loop in loop.cancelCall(id) }
        }
        return try result.get()
    }

    /// Sends several calls to one method back to back, in order, and waits for all their replies.
    ///
    /// The calls leave in the order given without waiting for each other's replies (the bus keeps the order
    /// between two connections), so a peer that serves them in order sees them in order: BlueZ's `WriteValue`
    /// commands for a run of packets cost one round trip instead of one each.
    ///
    /// - Parameters:
    ///   - destination: The bus name of the peer.
    ///   - path: The object.
    ///   - interface: The interface.
    ///   - member: The method.
    ///   - argumentLists: The arguments of each call.
    ///   - timeout: How long to wait for each reply.
    /// - Returns: Each call's reply, in order.
    /// - Throws: The first failure in call order (the other calls were still sent).
    package func callInOrder(
        destination: String?,
        path: String,
        interface: String?,
        member: String,
        argumentLists: [[DBusValue]],
        timeout: Duration
    ) async throws(DBusError) -> [[DBusValue]] {
        guard !argumentLists.isEmpty else { return [] }
        let requests = argumentLists.map {
            CallRequest(destination: destination, path: path, interface: interface, member: member, arguments: $0)
        }
        let loop = self.loop
        let ids = requests.map { _ in loop.nextID() }
        let results: [Result<[DBusValue], DBusError>] = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let accepted = loop.enqueue { loop in
                    let collector = ReplyCollector(count: requests.count) { continuation.resume(returning: $0) }
                    for (index, request) in requests.enumerated() {
                        loop.startCall(id: ids[index], request, timeout: timeout) { collector.store($0, at: index) }
                    }
                }
                if !accepted {
                    continuation.resume(returning: requests.map { _ in .failure(.disconnected) })
                }
            }
        } onCancel: {
            loop.enqueue { loop in
                for id in ids { loop.cancelCall(id) }
            }
        }
        var replies: [[DBusValue]] = []
        for result in results { replies.append(try result.get()) }
        return replies
    }

    /// Subscribes to signals.
    ///
    /// Returns once the bus has the match rule: every matching signal sent after that comes out of the stream,
    /// in the order the bus delivered them. The stream ends when the connection closes; ending the iteration
    /// drops the rule.
    ///
    /// - Parameters:
    ///   - rule: Which signals.
    ///   - bufferingPolicy: What to keep when the consumer falls behind. The default keeps everything, because a
    ///     dropped `PropertiesChanged` is a lost notification; pass a bounded policy for chatty signals whose
    ///     latest value is enough.
    /// - Returns: The signals.
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is gone.
    package func signals(
        matching rule: DBusMatchRule,
        bufferingPolicy: AsyncStream<DBusSignal>.Continuation.BufferingPolicy = .unbounded
    ) async throws(DBusError) -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusSignal.self, bufferingPolicy: bufferingPolicy)
        let id = loop.nextID()
        let loop = self.loop
        continuation.onTermination = { _ in
            loop.enqueue { loop in loop.unsubscribe(id: id) }
        }
        let result: Result<Void, DBusError> = await withCheckedContinuation { resumption in
            let accepted = loop.enqueue { loop in
                loop.subscribe(id: id, rule, continuation: continuation) { resumption.resume(returning: $0) }
            }
            if !accepted { resumption.resume(returning: .failure(.disconnected)) }
        }
        try result.get()
        return stream
    }

    /// Asks the bus for a well-known name, failing if someone else owns it.
    ///
    /// - Parameter name: The name (`org.bluez` in a test that plays BlueZ).
    /// - Throws: ``DBusError``; ``DBusError/errorReply(name:message:)`` with `org.freedesktop.DBus.Error.Failed`
    ///   when the name is taken.
    package func requestName(_ name: String) async throws(DBusError) {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE.
        let reply = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RequestName", arguments: [.string(name), .uint32(4)], timeout: .seconds(25))
        // 1: primary owner, 4: already the owner.
        guard let code = reply.first?.intValue, code == 1 || code == 4 else {
            throw .errorReply(
                name: DBusError.Names.failed, message: "the name '\(name)' is owned by another connection")
        }
    }

    /// Exports an object: method calls to `path` are answered by `handler`.
    ///
    /// The handler runs on the connection's thread: it must return quickly and must not wait for this
    /// connection (it would wait for itself).
    ///
    /// - Parameters:
    ///   - path: The object path.
    ///   - handler: Answers each call.
    /// - Throws: ``DBusError`` when the path is taken or invalid, or the connection is gone.
    package func export(
        path: String,
        handler: @escaping @Sendable (DBusMethodCall) -> DBusMethodReply
    ) async throws(DBusError) {
        try await perform { loop in loop.export(path: path, handler: handler) }
    }

    /// Stops exporting an object.
    ///
    /// - Parameter path: The object path.
    package func unexport(path: String) async {
        _ = try? await perform { loop in
            loop.unexport(path: path)
            return nil
        }
    }

    /// Emits a signal.
    ///
    /// - Parameters:
    ///   - path: The object that emits it.
    ///   - interface: Its interface.
    ///   - member: Its name.
    ///   - arguments: Its arguments.
    /// - Throws: ``DBusError`` when an argument cannot be sent or the connection is gone.
    package func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue]
    ) async throws(DBusError) {
        try await perform { loop in loop.emit(path: path, interface: interface, member: member, arguments: arguments) }
    }

    /// Answers a call whose export handler returned ``DBusMethodReply/deferred``.
    ///
    /// Callable from any thread, also from inside a handler; replies and ``post(path:interface:member:arguments:)``
    /// signals leave in the order they were handed over.
    ///
    /// - Parameters:
    ///   - id: The call's ``DBusMethodCall/id``.
    ///   - reply: The answer; ``DBusMethodReply/deferred`` keeps it waiting.
    package func reply(toCall id: UInt64, with reply: DBusMethodReply) {
        loop.enqueue { loop in loop.answerDeferred(id, with: reply) }
    }

    /// ``reply(toCall:with:)``, then `afterwards` on the connection's thread once the reply is built (libdbus has
    /// taken its own copies of the descriptors in it, so the caller's may be closed).
    ///
    /// - Parameters:
    ///   - id: The call's ``DBusMethodCall/id``.
    ///   - reply: The answer.
    ///   - afterwards: Runs after the reply is built and queued.
    package func reply(toCall id: UInt64, with reply: DBusMethodReply, afterwards: @escaping @Sendable () -> Void) {
        loop.enqueue { loop in
            loop.answerDeferred(id, with: reply)
            afterwards()
        }
    }

    /// Emits a signal without waiting: for export handlers, which run on the connection's thread and cannot wait.
    ///
    /// Signals posted from one thread leave in the order they were posted, interleaved in order with
    /// ``reply(toCall:with:)``. A signal that cannot be sent (an invalid argument, a closed connection) is dropped.
    ///
    /// - Parameters:
    ///   - path: The object that emits it.
    ///   - interface: Its interface.
    ///   - member: Its name.
    ///   - arguments: Its arguments.
    package func post(path: String, interface: String, member: String, arguments: [DBusValue]) {
        loop.enqueue { loop in
            _ = loop.emit(path: path, interface: interface, member: member, arguments: arguments)
        }
    }

    private func perform(_ job: @escaping @Sendable (ConnectionLoop) -> DBusError?) async throws(DBusError) {
        let loop = self.loop
        let error: DBusError? = await withCheckedContinuation { continuation in
            let accepted = loop.enqueue { loop in continuation.resume(returning: job(loop)) }
            if !accepted { continuation.resume(returning: .disconnected) }
        }
        if let error { throw error }
    }
}

/// Gathers the replies of ``BusConnection/callInOrder(destination:path:interface:member:argumentLists:timeout:)``;
/// lives on the loop thread only.
private final class ReplyCollector {
    private var results: [Result<[DBusValue], DBusError>?]
    private var remaining: Int
    private let completion: ([Result<[DBusValue], DBusError>]) -> Void

    init(count: Int, completion: @escaping ([Result<[DBusValue], DBusError>]) -> Void) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.completion = completion
    }

    func store(_ result: Result<[DBusValue], DBusError>, at index: Int) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 { completion(results.map { $0 ?? .failure(.disconnected) }) }
    }
}

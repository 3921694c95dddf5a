import CDBus
import DetachedThread
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one thread that owns a libdbus connection and makes every libdbus call (style.md §26).
///
/// Other threads only ``enqueue(_:)`` jobs; the thread runs them, dispatches what the connection received,
/// and blocks in `poll` on the connection's socket and a wake-up pipe until the next message, job or deadline
/// (swift-stack.md §1, pitfall 7: a thread parked in `dbus_connection_read_write_dispatch` delays other
/// threads' sends and never runs pending-call timeouts).
///
/// `@unchecked Sendable`: the jobs queue is behind a `Mutex`, the pipe descriptors are immutable, and every
/// other stored property is touched only on the loop thread: inside `run()`, inside jobs, and inside the
/// libdbus callbacks, which libdbus invokes only from the calls the loop thread makes.
final class ConnectionLoop: @unchecked Sendable {
    typealias Job = @Sendable (ConnectionLoop) -> Void

    private struct Queue {
        var jobs: [Job] = []
        var isClosed = false
    }

    private let queue = Mutex(Queue())
    private let ids = Atomic<UInt64>(1)
    private let wakePipe = WakePipe(for: "d-bus loop")

    // Loop-thread state.
    var connection: OpaquePointer?
    var isConnected = false
    var pendingCalls: [UInt64: PendingCall] = [:]
    var cancelledBeforeStart: Set<UInt64> = []
    var subscriptions: [UInt64: Subscription] = [:]
    var trackedOwners: [String: String?] = [:]
    var exports: [String: @Sendable (DBusMethodCall) -> DBusMethodReply] = [:]
    /// Calls whose handler answered ``DBusMethodReply/deferred``, by ``DBusMethodCall/id``.
    var deferredCalls: [UInt64: LibDBusMessage] = [:]
    var timeouts: [UInt: LibDBusTimeout] = [:]
    private let clock = ContinuousClock()

    /// Starts the thread, which first runs `open` (connecting) and then serves jobs until ``shutDown()``.
    func start(opening open: @escaping @Sendable (ConnectionLoop) -> Void) {
        enqueue(open)
        // The thread keeps the loop alive until run() returns.
        startDetachedThread { self.run() }
    }

    /// Hands `job` to the loop thread.
    ///
    /// - Returns: `false` when the loop has shut down; the job was not queued.
    @discardableResult
    func enqueue(_ job: @escaping Job) -> Bool {
        let accepted = queue.withLock { queue in
            guard !queue.isClosed else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    /// A fresh id for a call or a subscription.
    func nextID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Stops the loop: the thread fails what is in flight, closes the connection and ends.
    func shutDown() {
        queue.withLock { $0.isClosed = true }
        wake()
    }

    private func wake() {
        wakePipe.wake()
    }

    // MARK: The loop

    private func run() {
        while true {
            let (jobs, isClosed) = queue.withLock { queue in
                defer { queue.jobs.removeAll() }
                return (queue.jobs, queue.isClosed)
            }
            for job in jobs { job(self) }
            if isClosed { break }
            dispatchReceived()
            waitForActivity()
        }
        finish()
    }

    /// Runs the filter, pending-call notifications and object handlers for everything received.
    private func dispatchReceived() {
        guard let connection else { return }
        while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        if isConnected && dbus_connection_get_is_connected(connection) == 0 {
            connectionLost()
        }
    }

    private func waitForActivity() {
        var descriptors = [pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)]
        var socket: Int32 = -1
        if let connection, isConnected, dbus_connection_get_unix_fd(connection, &socket) != 0 {
            var events = Int16(POLLIN)
            if dbus_connection_has_messages_to_send(connection) != 0 { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: socket, events: events, revents: 0))
        }
        let result = poll(&descriptors, nfds_t(descriptors.count), pollTimeoutMilliseconds())
        if result < 0 && errno != EINTR {
            preconditionFailure("poll failed in the d-bus loop: errno \(errno)")
        }
        if descriptors[0].revents != 0 { wakePipe.drain() }
        if let connection, isConnected {
            // Non-blocking: reads what arrived, writes what is queued.
            _ = dbus_connection_read_write(connection, 0)
        }
        fireDueDeadlines()
    }

    /// Milliseconds until the earliest libdbus timeout or call deadline; -1 for none.
    private func pollTimeoutMilliseconds() -> Int32 {
        let deadlines = timeouts.values.compactMap(\.deadline) + pendingCalls.values.map(\.deadline)
        return WakePipe.pollTimeout(until: deadlines.min())
    }

    private func fireDueDeadlines() {
        let now = clock.now
        for (key, timeout) in timeouts where (timeout.deadline.map { $0 <= now } ?? false) {
            // A handler may remove other timeouts; handle only those still registered.
            guard timeouts[key] != nil else { continue }
            timeouts[key]?.deadline = now.advanced(by: timeout.interval)
            _ = dbus_timeout_handle(timeout.raw)
        }
        for (id, call) in pendingCalls where call.deadline <= now {
            abandonCall(id, with: .timedOut(member: call.member, timeout: call.timeout))
        }
    }

    /// A deadline `timeout` from now on the loop's clock.
    func deadline(after timeout: Duration) -> ContinuousClock.Instant {
        clock.now.advanced(by: timeout)
    }

    /// The bus dropped the connection: everything in flight fails, streams end.
    func connectionLost() {
        isConnected = false
        for id in Array(pendingCalls.keys) { abandonCall(id, with: .disconnected) }
        for subscription in subscriptions.values { subscription.continuation.finish() }
        subscriptions.removeAll()
    }

    private func finish() {
        if isConnected { connectionLost() }
        for id in Array(pendingCalls.keys) { abandonCall(id, with: .disconnected) }
        for subscription in subscriptions.values { subscription.continuation.finish() }
        subscriptions.removeAll()
        if let connection {
            for path in exports.keys { _ = dbus_connection_unregister_object_path(connection, path) }
            exports.removeAll()
            deferredCalls.removeAll()
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            self.connection = nil
        }
        timeouts.removeAll()
        // Jobs queued after the last pass get their failure now, on this thread.
        let late = queue.withLock { queue in
            defer { queue.jobs.removeAll() }
            return queue.jobs
        }
        for job in late { job(self) }
    }
}

/// A libdbus `DBusTimeout` the loop runs, with its next deadline while enabled.
struct LibDBusTimeout {
    let raw: OpaquePointer
    let interval: Duration
    var deadline: ContinuousClock.Instant?
}

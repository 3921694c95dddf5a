#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on a new detached thread: for the loops that block in `poll` (the D-Bus connection, socket readers,
/// timers), which must never run on the Swift cooperative pool (style.md §26).
///
/// - Parameter body: The thread's work; the thread ends when it returns.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
    precondition(created == 0, "cannot start a thread: error \(created)")
    pthread_detach(thread)
}

/// The closure, passed through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

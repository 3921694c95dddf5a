#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on a thread of its own, off the Swift cooperative pool (it blocks in `poll`).
///
/// - Parameter body: The thread's work.
package func startUDPThread(_ body: @escaping @Sendable () -> Void) {
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

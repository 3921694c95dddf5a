import BlueZ
import DBus
import DetachedThread
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that sleeps until the simulated device's next deadline, then lets it act.
///
/// The thread blocks in `poll` on a wake-up pipe with the time to the deadline as timeout, so an input that
/// brings the deadline forward only has to ``wake()`` it. It is a plain pthread rather than a task: it blocks,
/// and nothing on the cooperative pool may (style.md §26).
final class DeadlineTimer: Sendable {
    private let wakePipe = WakePipe(for: "simulator timer")
    private let isStopped = Atomic<Bool>(false)

    /// Creates the timer; nothing runs until ``start(deadline:fire:)``.
    init() {}

    /// Starts the thread.
    ///
    /// - Parameters:
    ///   - deadline: The next instant to act at, or `nil` for none; asked before every wait.
    ///   - fire: Acts; called when the deadline passed or the timer was woken.
    func start(
        deadline: @escaping @Sendable () -> ContinuousClock.Instant?,
        fire: @escaping @Sendable () -> Void
    ) {
        startDetachedThread { self.run(deadline: deadline, fire: fire) }
    }

    /// Makes the thread look at the deadline again.
    func wake() {
        wakePipe.wake()
    }

    /// Ends the thread.
    func stop() {
        isStopped.store(true, ordering: .releasing)
        wake()
    }

    private func run(deadline: () -> ContinuousClock.Instant?, fire: () -> Void) {
        while !isStopped.load(ordering: .acquiring) {
            var request = pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&request, 1, WakePipe.pollTimeout(until: deadline()))
            wakePipe.drain()
            if isStopped.load(ordering: .acquiring) { break }
            fire()
        }
    }

}

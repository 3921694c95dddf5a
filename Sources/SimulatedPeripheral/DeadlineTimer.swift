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
/// brings the deadline forward only has to wake it: ``reschedule()`` does so only then, since most inputs (a
/// packet) move no deadline and a wake-up costs a thread switch. It is a plain pthread rather than a task: it
/// blocks, and nothing on the cooperative pool may (style.md §26).
final class DeadlineTimer: Sendable {
    private let wakePipe = WakePipe(for: "simulator timer")
    private let isStopped = Atomic<Bool>(false)
    private let source = Mutex<(@Sendable () -> ContinuousClock.Instant?)?>(nil)
    /// The deadline the thread waits for (`nil`: none); computed and stored under this lock, so that a
    /// ``reschedule()`` compares with what the thread really waits for.
    private let waitingFor = Mutex<ContinuousClock.Instant?>(nil)

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
        source.withLock { $0 = deadline }
        startDetachedThread { self.run(deadline: deadline, fire: fire) }
    }

    /// Makes the thread look at the deadline again; callable with the deadline's own lock held.
    func wake() {
        wakePipe.wake()
    }

    /// Wakes the thread if the deadline is now earlier than the one it waits for; call it after an input, without
    /// holding the lock the deadline closure takes.
    func reschedule() {
        guard let deadline = source.withLock({ $0 }) else { return }
        let isEarlier = waitingFor.withLock { waited in
            guard let next = deadline() else { return false }
            return waited.map { next < $0 } ?? true
        }
        if isEarlier { wakePipe.wake() }
    }

    /// Ends the thread.
    func stop() {
        isStopped.store(true, ordering: .releasing)
        wake()
    }

    private func run(deadline: () -> ContinuousClock.Instant?, fire: () -> Void) {
        while !isStopped.load(ordering: .acquiring) {
            var request = pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)
            let due = waitingFor.withLock { waited in
                waited = deadline()
                return waited
            }
            _ = poll(&request, 1, WakePipe.pollTimeout(until: due))
            wakePipe.drain()
            if isStopped.load(ordering: .acquiring) { break }
            fire()
        }
    }

}

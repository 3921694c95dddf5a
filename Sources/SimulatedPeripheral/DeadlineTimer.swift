import BlueZTransport
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
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let isStopped = Atomic<Bool>(false)

    /// Creates the timer; nothing runs until ``start(deadline:fire:)``.
    init() {
        var descriptors: [Int32] = [-1, -1]
        precondition(pipe(&descriptors) == 0, "cannot create the simulator timer's pipe: errno \(errno)")
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        wakeReader = descriptors[0]
        wakeWriter = descriptors[1]
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

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
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    /// Ends the thread.
    func stop() {
        isStopped.store(true, ordering: .releasing)
        wake()
    }

    private func run(deadline: () -> ContinuousClock.Instant?, fire: () -> Void) {
        while !isStopped.load(ordering: .acquiring) {
            var request = pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
            _ = poll(&request, 1, Self.milliseconds(until: deadline()))
            var buffer = [UInt8](repeating: 0, count: 64)
            while buffer.withUnsafeMutableBytes({ read(wakeReader, $0.baseAddress, $0.count) }) > 0 {}
            if isStopped.load(ordering: .acquiring) { break }
            fire()
        }
    }

    /// The poll timeout for `deadline`: rounded up, so the thread never wakes before it; -1 for none.
    private static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

import Synchronization

/// Virtual time for the SMP simulation: it moves only when the simulated link moves it, so an upload that takes a
/// minute on the modelled radio runs in milliseconds, always with the same timeline.
public struct SMPVirtualClock: Clock, Sendable {
    /// A point in virtual time.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock started.
        public var offset: Duration

        /// Creates an instant.
        ///
        /// - Parameter offset: Time since the clock started.
        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let time = SharedTime()

    /// Creates a clock at zero.
    public init() {}

    public var now: Instant { Instant(offset: time.value.withLock { $0 }) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        advance(to: deadline.offset)
    }

    /// Moves time forward to `offset` (never back).
    func advance(to offset: Duration) {
        time.value.withLock { $0 = max($0, offset) }
    }

    private final class SharedTime: Sendable {
        let value = Mutex<Duration>(.zero)
    }
}

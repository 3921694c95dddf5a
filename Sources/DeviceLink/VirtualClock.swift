import Synchronization

/// A clock whose time moves only when the simulated link moves it: an upload that takes 20 s on the modelled
/// radio takes milliseconds to run, and the same inputs always give the same timeline.
///
/// `sleep(until:)` simply moves time forward: in the simulator nothing else runs while the adapter waits.
package struct VirtualClock: Clock, Sendable {
    /// A point in virtual time, measured from the clock's creation.
    package struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock started.
        package var offset: Duration

        /// Creates an instant.
        ///
        /// - Parameter offset: Time since the clock started.
        package init(offset: Duration) {
            self.offset = offset
        }

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let time: SharedTime

    /// Creates a clock at zero.
    package init() {
        time = SharedTime()
    }

    package var now: Instant { Instant(offset: time.value.withLock { $0 }) }
    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        advance(to: deadline.offset)
    }

    /// Moves time forward to `offset` (never backward).
    ///
    /// - Parameter offset: Time since the clock started.
    package func advance(to offset: Duration) {
        time.value.withLock { $0 = max($0, offset) }
    }

    /// The shared time, by reference: copies of a clock tick together.
    private final class SharedTime: Sendable {
        let value = Mutex<Duration>(.zero)
    }
}

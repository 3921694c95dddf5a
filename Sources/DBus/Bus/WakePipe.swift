#if canImport(Glibc)
    import Glibc
#endif

/// A self-pipe that wakes a thread blocked in `poll`.
///
/// The thread polls ``readEnd`` for `POLLIN` beside whatever else it waits for; any thread calls ``wake()``. Both
/// ends are non-blocking and close-on-exec.
package final class WakePipe: Sendable {
    /// The end the waiting thread polls.
    package let readEnd: Int32
    private let writeEnd: Int32

    /// Creates the pipe.
    ///
    /// - Parameter owner: Who uses it, for the message if the process is out of descriptors.
    package init(for owner: String) {
        var descriptors: [Int32] = [-1, -1]
        precondition(pipe(&descriptors) == 0, "cannot create the \(owner)'s wake-up pipe: errno \(errno)")
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes the waiting thread's `poll` return.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up, so that the next `poll` blocks again.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// The `poll` timeout until `deadline`: rounded up to whole milliseconds, so the thread never wakes before it;
    /// 0 when it has passed, -1 for no deadline.
    package static func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

import DBus
import DFUTargetAdapter
import DetachedThread
import DeviceLink
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One end of a socket BlueZ handed out through `AcquireWrite` or `AcquireNotify`: `SOCK_SEQPACKET`, one message per
/// ATT value (BlueZ `org.bluez.GattCharacteristic.rst`).
///
/// The descriptor is non-blocking; waiting is done by sleeping the task (sends) or on the socket's own watcher
/// thread (notifications), never by blocking a thread of the Swift pool.
final class AcquiredSocket: Sendable {
    let descriptor: Int32
    /// The ATT MTU BlueZ returned with the socket.
    let mtu: Int
    private let closed = Atomic<Bool>(false)

    /// Takes ownership of `descriptor`.
    init(descriptor: Int32, mtu: Int) {
        self.descriptor = descriptor
        self.mtu = mtu
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close()
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Closes the descriptor once.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Glibc.close(descriptor)
    }

    /// Sends each packet as one message, in order; a full socket is waited out until `deadline`.
    func send(_ packets: [[UInt8]], deadline: ContinuousClock.Instant) async throws(LinkError) {
        for packet in packets {
            while true {
                let sent = packet.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent == packet.count { break }
                let failure = errno
                if sent < 0 && failure == EINTR { continue }
                guard sent < 0, failure == EAGAIN || failure == EWOULDBLOCK || failure == ENOBUFS else {
                    throw .linkLost("the AcquireWrite socket failed: \(Self.describe(failure))")
                }
                guard ContinuousClock.now < deadline else {
                    throw .timedOut("the AcquireWrite socket stayed full until the deadline")
                }
                try? await Task.sleep(for: .microseconds(200))
            }
        }
    }

    /// Waits until the peer has taken every byte sent (`SIOCOUTQ` is 0), so that a write on another channel cannot
    /// overtake them (testrig.md, "two unordered channels").
    ///
    /// The socket drains at the link's pace, so the wait sleeps for half the time the bytes still queued need at
    /// the rate measured between two looks (1 ms at first, at most 20 ms): a few wake-ups per object instead of one
    /// a millisecond. Every wake-up takes CPU from bluetoothd and the peer (1 ms polls cost nrfloader 5.5 CPU seconds
    /// per 129 KiB upload on the real-bluetoothd tier's VM, 100 µs polls 8.3).
    func waitUntilSent(deadline: ContinuousClock.Instant) async throws(LinkError) {
        var previous: (queued: Int, at: ContinuousClock.Instant)?
        var pause = Duration.milliseconds(1)
        while true {
            let queued = Int(socketUnsentBytes(descriptor))
            if queued == 0 { return }
            guard queued > 0 else {
                throw .linkLost("the AcquireWrite socket failed: \(Self.describe(errno))")
            }
            let now = ContinuousClock.now
            guard now < deadline else {
                throw .timedOut("\(queued) bytes still queued on the AcquireWrite socket at the deadline")
            }
            if let previous, previous.queued > queued {
                let perByte = previous.at.duration(to: now) / (previous.queued - queued)
                pause = min(max(perByte * queued / 2, .milliseconds(1)), .milliseconds(20))
            }
            previous = (queued, now)
            try? await Task.sleep(for: min(pause, now.duration(to: deadline)))
        }
    }

    /// Reads every message waiting, without blocking.
    ///
    /// - Returns: The messages, and whether the peer closed the socket.
    func receiveAvailable() -> (messages: [[UInt8]], isAtEnd: Bool) {
        var messages: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: max(mtu, 23) + 8)
        while !isClosed {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                messages.append(Array(buffer[0..<count]))
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return (messages, count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
        }
        return (messages, true)
    }

    /// Calls `onReadable` on a dedicated thread each time the socket has data or closes, until it is closed here or
    /// `onReadable` returns `false`.
    func watch(_ onReadable: @escaping @Sendable () -> Bool) {
        startDetachedThread { [self] in
            while !isClosed {
                var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&descriptors, 1, 100)
                guard ready > 0 else { continue }
                if !onReadable() { return }
            }
        }
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

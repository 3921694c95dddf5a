import BlueZ
import DBus
import DetachedThread
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The socket pair behind an `AcquireWrite` or `AcquireNotify` answer (BlueZ `org.bluez.GattCharacteristic.rst`):
/// `SOCK_SEQPACKET`, so each record is one ATT Write Command or one notification.
///
/// The remote end is what BlueZ gets; it stays open here so that every later `Acquire*` of the same link gets
/// the same socket (one ordered stream per characteristic) and is closed together with the local end. A reader
/// thread waits on the local end and calls back when records arrive; records are taken with
/// ``receiveAvailable()`` by whoever holds the peripheral's lock, so packets reach the device in order.
///
/// bluezoo keeps copies of every descriptor it passes on (testrig.md, defect 4), so the far side never
/// closes: ``close()`` is called when the link drops.
final class AcquiredSocket: Sendable {
    /// The end this process reads and writes.
    let local: Int32
    /// The end handed to BlueZ (as duplicates).
    let remote: Int32
    private let isClosed = Atomic<Bool>(false)

    /// Creates the pair, close-on-exec.
    ///
    /// - Returns: `nil` when `socketpair` fails (descriptor exhaustion).
    init?() {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { return nil }
        local = descriptors[0]
        remote = descriptors[1]
    }

    /// Starts the reader thread; it ends, and closes both ends, after ``close()``.
    ///
    /// - Parameter onReadable: Called on the reader thread whenever records wait; returns `false` when the socket
    ///   is no longer wanted (the thread then ends).
    func startReading(_ onReadable: @escaping @Sendable () -> Bool) {
        startDetachedThread { self.readUntilClosed(onReadable) }
    }

    /// Every record waiting on the local end, without blocking.
    func receiveAvailable() -> [[UInt8]] {
        var records: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !isClosed.load(ordering: .acquiring) {
            let count = buffer.withUnsafeMutableBytes {
                recv(local, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            records.append(Array(buffer[0..<count]))
        }
        return records
    }

    /// Sends one record without blocking.
    ///
    /// - Returns: `false` when the record could not be queued (the far side stopped reading, or the socket closed).
    func send(_ bytes: [UInt8]) -> Bool {
        guard !isClosed.load(ordering: .acquiring) else { return false }
        let sent = bytes.withUnsafeBytes {
            Glibc.send(local, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        }
        return sent == bytes.count
    }

    /// Shuts both ends down: the far side sees the socket close, the reader thread ends and closes them.
    func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(local, Int32(SHUT_RDWR))
        shutdown(remote, Int32(SHUT_RDWR))
    }

    private func readUntilClosed(_ onReadable: @Sendable () -> Bool) {
        while true {
            var request = pollfd(fd: local, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, -1)
            if ready < 0 && errno == EINTR { continue }
            let hangUp = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
            if ready < 0 || request.revents & hangUp != 0 || isClosed.load(ordering: .acquiring) { break }
            if !onReadable() { break }
        }
        close()
        closeDescriptors()
    }

    private func closeDescriptors() {
        Glibc.close(local)
        Glibc.close(remote)
    }
}

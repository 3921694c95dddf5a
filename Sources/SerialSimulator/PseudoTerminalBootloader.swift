#if canImport(Glibc)
    import Glibc
#endif

/// Serves a simulated serial bootloader (``SerialBootloader``, ``LegacySerialBootloader``) on a pseudo-terminal: the host opens the slave side (or a symlink to it) as it
/// would open /dev/ttyACM0.
public final class PseudoTerminalBootloader<Model: SerialBootloaderModel> {
    /// The slave device, `/dev/pts/N`.
    public let slavePath: String
    /// The symlink made to it, if any.
    public let linkPath: String?
    private var master: Int32
    private let slave: Int32
    private var bootloader: Model
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let paceBaudRate: Int?

    /// Opens a pseudo-terminal pair, puts the slave in raw mode and links `linkPath` to it.
    ///
    /// - Parameters:
    ///   - bootloader: The device.
    ///   - linkPath: A symlink to create (replacing an older symlink there), or `nil`.
    ///   - paceBaudRate: Read no faster than this line rate (10 bits a byte), as a UART would deliver.
    /// - Throws: ``PseudoTerminalError`` naming the call that failed.
    public init(bootloader: Model, linkPath: String?, paceBaudRate: Int?) throws(PseudoTerminalError) {
        // /dev/ptmx and its two ioctls: what posix_openpt, unlockpt and ptsname do (Glibc's Swift module hides
        // those behind _XOPEN_SOURCE). The request numbers are the generic Linux ones (asm-generic/ioctls.h).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else {
            throw PseudoTerminalError(description: "'/dev/ptmx': open failed: \(Self.reason())")
        }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            let reason = Self.reason()
            close(master)
            throw PseudoTerminalError(description: "'/dev/ptmx': unlock failed: \(reason)")
        }
        let slavePath = "/dev/pts/\(number)"
        // Holding the slave open keeps the master from reading hang-ups between two host sessions; raw mode at
        // once, so nothing the host sends is echoed before it sets its own modes.
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            throw PseudoTerminalError(description: "'\(slavePath)': open failed: \(Self.reason())")
        }
        var options = termios()
        tcgetattr(slave, &options)
        cfmakeraw(&options)
        tcsetattr(slave, TCSANOW, &options)
        if let linkPath {
            var information = stat()
            if lstat(linkPath, &information) == 0 {
                guard information.st_mode & S_IFMT == S_IFLNK else {
                    throw PseudoTerminalError(description: "'\(linkPath)': exists and is not a symlink")
                }
                unlink(linkPath)
            }
            guard symlink(slavePath, linkPath) == 0 else {
                throw PseudoTerminalError(description: "'\(linkPath)': cannot create symlink: \(Self.reason())")
            }
        }
        self.master = master
        self.slave = slave
        self.slavePath = slavePath
        self.linkPath = linkPath
        self.bootloader = bootloader
        self.paceBaudRate = paceBaudRate
        start = clock.now
    }

    /// The device's state now.
    public var state: Model { bootloader }

    /// Serves until `shouldStop` says so or the port vanishes (a fault); then removes the link and closes.
    ///
    /// - Parameter shouldStop: Asked after every input with the bootloader's state.
    /// - Returns: Whether the port vanished because of a fault.
    public func run(until shouldStop: (Model) -> Bool) -> Bool {
        defer { shutDown() }
        var lineFreeAt = Duration.zero
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !shouldStop(bootloader) {
            let now = elapsed
            var wait = Duration.milliseconds(50)
            if let next = bootloader.nextEventTime { wait = max(.zero, min(wait, next - now)) }
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            var output = bootloader.advance(to: elapsed)
            if ready > 0 && poller.revents & Int16(POLLIN) != 0 {
                let readLimit = paceBaudRate.map { max(1, $0 / 10 / 100) } ?? buffer.count
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, min($0.count, readLimit)) }
                if count > 0 {
                    if let rate = paceBaudRate {
                        lineFreeAt = max(lineFreeAt, elapsed) + .nanoseconds(count * 10 * 1_000_000_000 / rate)
                        let pause = lineFreeAt - elapsed
                        if pause > .zero { sleep(for: pause) }
                    }
                    let received = bootloader.receive(Array(buffer.prefix(count)), at: elapsed)
                    output.bytes += received.bytes
                    output.vanishes = received.vanishes
                }
            }
            send(output.bytes)
            if output.vanishes { return true }
        }
        return false
    }

    private var elapsed: Duration { start.duration(to: clock.now) }

    private func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(master, base + sent, raw.count - sent)
            }
            if count <= 0 { return }
            sent += count
        }
    }

    private func sleep(for duration: Duration) {
        var request = timespec(
            tv_sec: Int(duration.components.seconds),
            tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        nanosleep(&request, nil)
    }

    private func shutDown() {
        if let linkPath { unlink(linkPath) }
        close(slave)
        close(master)
    }

    /// TIOCSPTLCK: `_IOW('T', 0x31, int)`.
    private static var setLock: UInt { 0x4004_5431 }
    /// TIOCGPTN: `_IOR('T', 0x30, unsigned int)`.
    private static var getNumber: UInt { 0x8004_5430 }

    private static func reason() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

/// Why the pseudo-terminal could not be set up.
public struct PseudoTerminalError: Error, Sendable, CustomStringConvertible {
    /// The failure, naming the call and the path.
    public let description: String
}

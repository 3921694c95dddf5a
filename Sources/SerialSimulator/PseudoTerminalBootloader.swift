#if canImport(Glibc)
    import Glibc
#endif

/// Serves a simulated serial bootloader (``SerialBootloader``, ``LegacySerialBootloader``) on a pseudo-terminal: the host opens the slave side (or a symlink to it) as it
/// would open /dev/ttyACM0.
package final class PseudoTerminalBootloader<Model: SerialLineModel> {
    /// The slave device, `/dev/pts/N` (a new one after each re-enumeration).
    package private(set) var slavePath: String
    /// The symlink made to it, if any (another one after a re-enumeration under the next name).
    package private(set) var linkPath: String?
    private var master: Int32
    private var slave: Int32
    private var bootloader: Model
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let paceBaudRate: Int?
    private var usb: SimulatedUSBDevice?
    private let reenumeration: SerialReenumeration?
    private var ignoredBytes = 0

    /// Opens a pseudo-terminal pair, puts the slave in raw mode and links `linkPath` to it.
    ///
    /// - Parameters:
    ///   - bootloader: The device.
    ///   - linkPath: A symlink to create (replacing an older symlink there), or `nil`.
    ///   - paceBaudRate: Read no faster than this line rate (10 bits a byte), as a UART would deliver.
    ///   - usb: The device as sysfs describes it, with a tty entry named as `linkPath`'s last component.
    ///   - reenumeration: Whether, and how, the port disappears and returns after each activation.
    /// - Throws: ``PseudoTerminalError`` naming the call that failed.
    package init(
        bootloader: Model, linkPath: String?, paceBaudRate: Int?, usb: SimulatedUSBDevice? = nil,
        reenumeration: SerialReenumeration? = nil
    ) throws(PseudoTerminalError) {
        (master, slave, slavePath) = try Self.openPair()
        self.linkPath = linkPath
        self.bootloader = bootloader
        self.paceBaudRate = paceBaudRate
        self.usb = usb
        self.reenumeration = reenumeration
        start = clock.now
        try plug()
    }

    /// Opens a raw pseudo-terminal pair.
    ///
    /// /dev/ptmx and its two ioctls: what posix_openpt, unlockpt and ptsname do (Glibc's Swift module hides those
    /// behind _XOPEN_SOURCE). The request numbers are the generic Linux ones (asm-generic/ioctls.h).
    private static func openPair() throws(PseudoTerminalError) -> (master: Int32, slave: Int32, slavePath: String) {
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
            let reason = Self.reason()
            close(master)
            throw PseudoTerminalError(description: "'\(slavePath)': open failed: \(reason)")
        }
        var options = termios()
        tcgetattr(slave, &options)
        cfmakeraw(&options)
        tcsetattr(slave, TCSANOW, &options)
        return (master, slave, slavePath)
    }

    /// Links the port's path to the slave and describes it in sysfs: the device is on the bus.
    private func plug() throws(PseudoTerminalError) {
        guard let linkPath else { return }
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
        try usb?.plug(as: Self.name(of: linkPath))
    }

    /// Removes the link and the sysfs entry and closes the pair: the device is off the bus.
    private func unplug() {
        if let linkPath {
            usb?.unplug(Self.name(of: linkPath))
            unlink(linkPath)
        }
        close(slave)
        close(master)
    }

    /// The device resets and re-enumerates: off the bus for a while, then back on a new pair under its new name.
    private func reenumerate(_ reenumeration: SerialReenumeration) throws(PseudoTerminalError) {
        unplug()
        sleep(for: reenumeration.absence)
        if let serial = reenumeration.serialNumberAfterReset { usb?.replaceSerialNumber(with: serial) }
        if reenumeration.naming == .next, let linkPath { self.linkPath = Self.nextName(linkPath) }
        (master, slave, slavePath) = try Self.openPair()
        try plug()
        let serial = usb.map { ", usb serial number \($0.serialNumber)" } ?? ""
        let ignored = ignoredBytes > 0 ? " (\(ignoredBytes) bytes from the host ignored while resetting)" : ""
        bootloader.lineReset("port re-enumerated as \(linkPath ?? slavePath)\(serial)\(ignored)")
        ignoredBytes = 0
    }

    private static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `ttyACM0` → `ttyACM1`, `tty` → `tty1`.
    static func nextName(_ path: String) -> String {
        let digits = path.reversed().prefix { $0.isASCII && $0.isNumber }
        let stem = path.dropLast(digits.count)
        return stem + String((Int(String(digits.reversed())) ?? 0) + 1)
    }

    /// The device's state now.
    package var state: Model { bootloader }

    /// Serves until `shouldStop` says so or the port vanishes (a fault); then removes the link and closes.
    ///
    /// - Parameter shouldStop: Asked after every input with the bootloader's state.
    /// - Returns: Whether the port vanished because of a fault.
    /// - Throws: ``PseudoTerminalError`` when the port cannot be made again after a re-enumeration.
    package func run(until shouldStop: (Model) -> Bool) throws(PseudoTerminalError) -> Bool {
        defer { unplug() }
        var lineFreeAt = Duration.zero
        var buffer = [UInt8](repeating: 0, count: 4096)
        var activations = bootloader.activations
        var reenumerateAt: Duration?
        while !shouldStop(bootloader) {
            if let reenumeration, let due = reenumerateAt, elapsed >= due {
                reenumerateAt = nil
                try reenumerate(reenumeration)
                lineFreeAt = elapsed
            }
            let now = elapsed
            var wait = Duration.milliseconds(50)
            if let next = bootloader.nextEventTime { wait = max(.zero, min(wait, next - now)) }
            if let due = reenumerateAt { wait = max(.zero, min(wait, due - now)) }
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            var output = bootloader.advance(to: elapsed)
            if ready > 0 && poller.revents & Int16(POLLIN) != 0 {
                let readLimit = paceBaudRate.map { max(1, $0 / 10 / 100) } ?? buffer.count
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, min($0.count, readLimit)) }
                // A device that is resetting hears nothing.
                if count > 0 && reenumerateAt != nil { ignoredBytes += count }
                if count > 0 && reenumerateAt == nil {
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
            if let reenumeration, bootloader.activations > activations {
                activations = bootloader.activations
                reenumerateAt = elapsed + reenumeration.delay
            }
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

    /// TIOCSPTLCK: `_IOW('T', 0x31, int)`.
    private static var setLock: UInt { 0x4004_5431 }
    /// TIOCGPTN: `_IOR('T', 0x30, unsigned int)`.
    private static var getNumber: UInt { 0x8004_5430 }

    private static func reason() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

/// Why the pseudo-terminal could not be set up.
package struct PseudoTerminalError: Error, Sendable, CustomStringConvertible {
    /// The failure, naming the call and the path.
    package let description: String
}

/// How the device comes back after a reset, as a USB CDC device does: its port disappears and returns.
package struct SerialReenumeration: Sendable, Equatable {
    /// The name the port comes back under.
    package enum Naming: String, Sendable, CaseIterable {
        /// The same name (Linux gives a returning device the lowest free ttyACM number, usually its old one).
        case same
        /// The next number (`ttyACM0`, then `ttyACM1`): another device took the old name meanwhile.
        case next
    }

    /// The name it comes back under.
    package var naming: Naming
    /// The USB serial number it comes back with (`nil`: its own; another one plays a different board).
    package var serialNumberAfterReset: String?
    /// How long after the activation the port disappears: the device answers first, then hears nothing while it
    /// resets.
    package var delay: Duration = .milliseconds(100)
    /// How long it stays away.
    package var absence: Duration = .milliseconds(300)

    /// Re-enumeration under `naming`.
    package init(naming: Naming, serialNumberAfterReset: String? = nil, delay: Duration = .milliseconds(100)) {
        self.naming = naming
        self.serialNumberAfterReset = serialNumberAfterReset
        self.delay = delay
    }
}

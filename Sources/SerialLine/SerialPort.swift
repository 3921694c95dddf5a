#if canImport(Glibc)
    import Glibc
#endif

/// An open tty in raw mode: the only code of the module that calls termios, `poll`, `read` and `write`.
///
/// One task owns a port at a time; the value is just the descriptor and the path.
package struct SerialPort: Sendable {
    /// Line settings.
    package struct Settings: Sendable, Equatable {
        package var baudRate = 115_200
        package var hardwareFlowControl = false

        package init(baudRate: Int = 115_200, hardwareFlowControl: Bool = false) {
            self.baudRate = baudRate
            self.hardwareFlowControl = hardwareFlowControl
        }
    }

    /// What a read found.
    package enum ReadResult: Sendable, Equatable {
        case bytes([UInt8])
        case timedOut
    }

    package let path: String
    private let descriptor: Int32

    /// Opens `path` exclusively, raw, 8N1, at the given speed.
    ///
    /// - Throws: ``SerialPortError``.
    package init(path: String, settings: Settings) throws(SerialPortError) {
        let speed = try Self.speedConstant(settings.baudRate)
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Self.openError(path: path, errno: errno) }
        guard isatty(fd) == 1 else {
            Glibc.close(fd)
            throw .notATerminal(path: path)
        }
        // Two cooperating programs (two nrfloaders, or pyserial with exclusive=True) lock the port with flock.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            Glibc.close(fd)
            throw .busy(path: path)
        }
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            let reason = Self.reason(errno)
            Glibc.close(fd)
            throw .system(path: path, call: "tcgetattr", reason: reason)
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        options.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
        if settings.hardwareFlowControl {
            options.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            options.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        cfsetispeed(&options, speed)
        cfsetospeed(&options, speed)
        guard tcsetattr(fd, TCSANOW, &options) == 0 else {
            let reason = Self.reason(errno)
            Glibc.close(fd)
            throw .system(path: path, call: "tcsetattr", reason: reason)
        }
        tcflush(fd, TCIOFLUSH)
        self.path = path
        self.descriptor = fd
    }

    /// Opens and closes the port at `baudRate` with DTR dropped: Adafruit's "1200-baud touch" that makes the
    /// application jump to its bootloader.
    package static func touch(path: String, baudRate: Int) throws(SerialPortError) {
        let port = try SerialPort(path: path, settings: Settings(baudRate: baudRate))
        var bits = TIOCM_DTR
        _ = ioctl(port.descriptor, UInt(TIOCMBIC), &bits)
        port.close()
    }

    /// Reads what is available, waiting up to `timeout` for the first byte.
    package func read(timeout: Duration) throws(SerialPortError) -> ReadResult {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = max(
            0,
            Int32(clamping: timeout.components.seconds * 1000)
                + Int32(clamping: timeout.components.attoseconds / 1_000_000_000_000_000))
        let ready = poll(&poller, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { return .timedOut }
            throw .vanished(path: path, reason: Self.reason(errno))
        }
        if ready == 0 { return .timedOut }
        if poller.revents & Int16(POLLIN) == 0 {
            throw .vanished(path: path, reason: "hang-up")
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 { return .bytes(Array(buffer.prefix(count))) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .timedOut }
        throw .vanished(path: path, reason: count == 0 ? "end of file" : Self.reason(errno))
    }

    /// Writes all of `bytes`, waiting while the line is full, then waits until they left the buffer.
    package func write(_ bytes: [UInt8]) throws(SerialPortError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(descriptor, base + sent, raw.count - sent)
            }
            if count > 0 {
                sent += count
                continue
            }
            if count < 0, errno == EAGAIN || errno == EINTR {
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, 1000)
                if poller.revents & Int16(POLLHUP | POLLERR) != 0 {
                    throw .vanished(path: path, reason: "hang-up while writing")
                }
                continue
            }
            throw .vanished(path: path, reason: Self.reason(errno))
        }
    }

    /// Drops what the device sent and nobody read yet.
    package func discardInput() {
        tcflush(descriptor, TCIFLUSH)
    }

    /// Closes the descriptor.
    package func close() {
        _ = Glibc.close(descriptor)
    }

    private static func openError(path: String, errno code: Int32) -> SerialPortError {
        switch code {
        case ENOENT, ENODEV, ENXIO: .notFound(path: path)
        case EBUSY: .busy(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        default: .system(path: path, call: "open", reason: reason(code))
        }
    }

    package static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    private static func speedConstant(_ rate: Int) throws(SerialPortError) -> speed_t {
        let table: [Int: Int32] = [
            1200: B1200, 2400: B2400, 4800: B4800, 9600: B9600, 19_200: B19200, 38_400: B38400, 57_600: B57600,
            115_200: B115200, 230_400: B230400, 460_800: B460800, 500_000: B500000, 576_000: B576000,
            921_600: B921600, 1_000_000: B1000000, 2_000_000: B2000000,
        ]
        guard let constant = table[rate] else { throw .unsupportedBaudRate(rate) }
        return speed_t(constant)
    }
}

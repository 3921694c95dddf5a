package import Foundation
package import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Tag {
    /// Tests that run real processes: a private dbus-daemon, and bluezoo from the rig's venv.
    @Tag package static var integration: Self
}

/// Something the rig could not do; the message says what, with the log when there is one.
package struct RigError: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

/// A private `dbus-daemon` (testrig.md, rung 1), our direct child so that it can be killed and reaped by pid.
///
/// The daemon prints its address into a FIFO (`--print-address=3`): reading that line is the readiness signal,
/// with no polling of the socket.
package final class PrivateBus: Sendable {
    package let address: String
    package let pid: pid_t
    package let directory: TemporaryDirectory
    private let process: RigProcess

    /// `dbus-daemon` on PATH, or `nil` (tests that need it are disabled).
    package static let daemonPath: String? = TestPaths.which("dbus-daemon")

    private init(address: String, directory: TemporaryDirectory, process: RigProcess) {
        self.address = address
        self.pid = process.pid
        self.directory = directory
        self.process = process
    }

    /// Starts a daemon with a session-type configuration that lets anyone own any name (`org.bluez`) and pass
    /// unix fds.
    package static func start() throws -> PrivateBus {
        guard let daemon = daemonPath else { throw RigError(description: "dbus-daemon is not installed") }
        let directory = try TemporaryDirectory()
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.file("bus"))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try directory.write("bus.conf", Array(configuration.utf8))
        let fifo = directory.file("address")
        guard mkfifo(fifo, 0o600) == 0 else { throw RigError(description: "mkfifo failed: errno \(errno)") }
        // Open our end first, non-blocking, so that the daemon's open of the write end does not wait for us.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw RigError(description: "cannot open the address FIFO: errno \(errno)") }
        defer { close(reader) }
        // `exec` keeps the pid: the daemon itself is our child.
        let process = try RigProcess.start(
            "/bin/sh",
            [
                "-c", "exec \"$0\" --config-file=\"$1\" --nofork --nopidfile --print-address=3 3>\"$2\"", daemon,
                directory.file("bus.conf"), fifo,
            ], log: directory.file("dbus-daemon.log"))
        guard let address = readLine(from: reader, within: 10_000) else {
            process.stop()
            let log = (try? String(contentsOfFile: directory.file("dbus-daemon.log"), encoding: .utf8)) ?? ""
            directory.remove()
            throw RigError(description: "dbus-daemon did not start: \(log)")
        }
        return PrivateBus(address: address, directory: directory, process: process)
    }

    /// Kills the daemon, reaps it and removes its directory.
    package func stop() {
        process.stop()
        directory.remove()
    }

    /// Reads one line, waiting at most `milliseconds` in total.
    private static func readLine(from descriptor: Int32, within milliseconds: Int32) -> String? {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        var remaining = milliseconds
        while remaining > 0 {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let started = ContinuousClock.now
            let ready = poll(&request, 1, remaining)
            let elapsed = started.duration(to: .now).components
            remaining -= Int32(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                collected += buffer[0..<count]
                if let newline = collected.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: collected[..<newline], as: UTF8.self)
                }
            } else if count == 0 && request.revents & Int16(POLLHUP) != 0 {
                return nil
            }
        }
        return nil
    }
}

/// Whether a process is gone: no such pid, or a zombie nobody reaped yet.
package func isProcessGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 && errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    guard let closing = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: closing)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

import BlueZ
import BlueZTransport
import DBus
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension BlueZRig {
    /// Starts `nrfloader simulate` on the rig's bus and waits (20 s at most) for its ready line; the rig kills it
    /// when it stops.
    ///
    /// stdout comes back line by line through the returned process; stderr (the device's log) goes to a file.
    ///
    /// - Parameter arguments: The arguments after `simulate`.
    /// - Returns: The running simulator.
    /// - Throws: ``RigError`` when it does not get ready, with its log and the rig's.
    func startSimulate(_ arguments: [String]) async throws -> SimulateProcess {
        let process = try SimulateProcess.start(arguments, rig: self)
        onStop { process.stop() }
        let isReady = try await process.wait(within: .seconds(20)) { lines, exitStatus in
            exitStatus != nil || lines.contains { $0.hasPrefix("ready: ") || $0.contains(#""event":"ready""#) }
        }
        guard isReady, process.exitStatus == nil else {
            throw RigError(
                description:
                    "nrfloader simulate did not get ready (exit status \(process.exitStatus.map(String.init) ?? "none")); "
                    + "stdout:\n\(process.lines.joined(separator: "\n"))\nstderr:\n\(process.log)\nrig log:\n\(log)")
        }
        return process
    }
}

/// A running `nrfloader simulate`: stdout read line by line on a thread (through a FIFO), stderr in a file.
///
/// The reader thread reaps the process when its stdout ends; ``stop()`` kills it first if it still runs. Both
/// happen under one lock, so a reaped pid is never signalled (it may belong to someone else by then).
final class SimulateProcess: Sendable {
    let pid: pid_t
    /// The file that collects stderr.
    let logPath: String

    private struct State {
        var lines: [String] = []
        var exitStatus: Int32?
        var isReaped = false
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private struct Waiter {
        let isSatisfied: @Sendable ([String], Int32?) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let state = Mutex(State())

    private init(pid: pid_t, logPath: String) {
        self.pid = pid
        self.logPath = logPath
    }

    /// Every stdout line so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// The exit status once the process ended (128 + signal if a signal ended it).
    var exitStatus: Int32? { state.withLock { $0.exitStatus } }

    /// stderr so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    fileprivate static func start(_ arguments: [String], rig: BlueZRig) throws -> SimulateProcess {
        let name = "simulate-\(UUID().uuidString.prefix(8))"
        let fifo = rig.bus.directory.file(name + ".out")
        let logPath = rig.bus.directory.file(name + ".err")
        guard mkfifo(fifo, 0o600) == 0 else { throw RigError(description: "mkfifo failed: errno \(errno)") }
        // Open our end first, non-blocking, so that the child's open of the write end does not wait for us.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw RigError(description: "cannot open the FIFO: errno \(errno)") }
        // `exec` keeps the pid; stdout goes to the FIFO (RigProcess's log), stderr to its own file.
        let child: RigProcess
        do {
            child = try RigProcess.start(
                "/bin/sh",
                ["-c", #"log="$1"; shift 1; exec "$@" 2>>"$log""#, "sh", logPath, TestPaths.nrfloader, "simulate"]
                    + arguments,
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address], log: fifo)
        } catch {
            close(reader)
            throw error
        }
        let process = SimulateProcess(pid: child.pid, logPath: logPath)
        Thread { process.readLines(from: reader) }.start()
        return process
    }

    /// Waits until `condition` holds for the lines and exit status, for at most `limit`.
    ///
    /// - Returns: Whether it held before the limit.
    func wait(
        within limit: Duration, until condition: @escaping @Sendable ([String], Int32?) -> Bool
    ) async throws -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let held = try await withDeadline(limit) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let isSatisfied = self.state.withLock { state -> Bool in
                        if condition(state.lines, state.exitStatus) { return true }
                        state.waiters[id] = Waiter(isSatisfied: condition, continuation: continuation)
                        return false
                    }
                    if isSatisfied { continuation.resume(returning: true) }
                }
            } onCancel: {
                self.state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
            }
        }
        return held ?? false
    }

    /// The first stdout line that satisfies `predicate`, waiting for it at most `limit`.
    ///
    /// - Throws: ``RigError`` with the output when no such line came.
    func line(within limit: Duration = .seconds(30), where predicate: @escaping @Sendable (String) -> Bool)
        async throws -> String
    {
        _ = try await wait(within: limit) { lines, exitStatus in exitStatus != nil || lines.contains(where: predicate) }
        guard let line = lines.first(where: predicate) else {
            throw RigError(
                description: "no such line from simulate; stdout:\n\(lines.joined(separator: "\n"))\nstderr:\n\(log)")
        }
        return line
    }

    /// The exit status, waiting for the process to end at most `limit`.
    func exit(within limit: Duration) async throws -> Int32? {
        _ = try await wait(within: limit) { _, exitStatus in exitStatus != nil }
        return exitStatus
    }

    /// Sends `signal`, unless the process has been reaped.
    func send(_ signal: Int32) {
        state.withLock { state in
            if !state.isReaped { kill(pid, signal) }
        }
    }

    /// Kills the process (if it still runs) and reaps it.
    func stop() {
        update { state in
            guard !state.isReaped else { return }
            kill(pid, SIGKILL)
            state.exitStatus = Self.reap(pid)
            state.isReaped = true
        }
    }

    private func readLines(from descriptor: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, -1) >= 0 || errno == EINTR else { break }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { break }
            pending += buffer[0..<count]
            var complete: [String] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                complete.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
            if !complete.isEmpty { update { $0.lines += complete } }
        }
        close(descriptor)
        update { state in
            guard !state.isReaped else { return }
            state.exitStatus = Self.reap(pid)
            state.isReaped = true
        }
    }

    /// Changes the state and wakes the waiters whose condition now holds.
    private func update(_ change: (inout State) -> Void) {
        let satisfied = state.withLock { state -> [Waiter] in
            change(&state)
            let ready = state.waiters.filter { $0.value.isSatisfied(state.lines, state.exitStatus) }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return Array(ready.values)
        }
        for waiter in satisfied { waiter.continuation.resume(returning: true) }
    }

    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}

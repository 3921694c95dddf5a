package import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a finished child process left behind.
package struct ProcessResult: Sendable {
    /// The exit status, or 128 + the signal number if a signal ended it.
    package var status: Int32
    package var stdout: [UInt8]
    package var stderr: [UInt8]

    /// Standard output as UTF-8 text.
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Serialises pipe creation and spawning across all tests of the process (see ``ProcessRunner/start(_:_:environment:)``).
private let spawnLock = NSLock()

/// Runs programs the way a shell would, for tests that check stdout, stderr and the exit status separately.
///
/// Children are started with `posix_spawn` and an empty signal mask with default dispositions, so SIGINT and
/// SIGTERM reach them even when the test runs on a thread that blocks signals (swift-stack.md §1, pitfall 8).
package struct ProcessRunner: Sendable {
    package init() {}

    /// A child that is still running.
    package final class Running: @unchecked Sendable {
        // Unchecked: the pid and descriptors are written once in `init` and only read afterwards.
        package let pid: pid_t
        private let stdinWriter: Int32
        private let stdoutReader: Int32
        private let stderrReader: Int32

        init(pid: pid_t, stdinWriter: Int32, stdoutReader: Int32, stderrReader: Int32) {
            self.pid = pid
            self.stdinWriter = stdinWriter
            self.stdoutReader = stdoutReader
            self.stderrReader = stderrReader
        }

        /// Writes `bytes` to the child's standard input.
        package func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(
                        stdinWriter, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }

        private let inputClosed = Mutex(false)

        /// Closes the child's standard input (once; later calls do nothing).
        package func closeInput() {
            let wasClosed = inputClosed.withLock { closed in
                defer { closed = true }
                return closed
            }
            if !wasClosed { close(stdinWriter) }
        }

        /// Sends `signal` to the child.
        package func send(_ signal: Int32) {
            kill(pid, signal)
        }

        /// Waits for the child to end and collects its output.
        package func wait() -> ProcessResult {
            var stdout: [UInt8] = []
            var stderr: [UInt8] = []
            drain([(stdoutReader, 0), (stderrReader, 1)]) { index, bytes in
                if index == 0 { stdout += bytes } else { stderr += bytes }
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return ProcessResult(status: exit, stdout: stdout, stderr: stderr)
        }

        private func drain(_ readers: [(Int32, Int)], into sink: (Int, [UInt8]) -> Void) {
            var open = readers
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !open.isEmpty {
                var polls = open.map { pollfd(fd: $0.0, events: Int16(POLLIN), revents: 0) }
                guard poll(&polls, nfds_t(polls.count), -1) >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                var stillOpen: [(Int32, Int)] = []
                for (poll, reader) in zip(polls, open) {
                    guard poll.revents != 0 else {
                        stillOpen.append(reader)
                        continue
                    }
                    let count = buffer.withUnsafeMutableBytes { read(reader.0, $0.baseAddress, $0.count) }
                    if count > 0 {
                        sink(reader.1, Array(buffer[0..<count]))
                        stillOpen.append(reader)
                    } else {
                        close(reader.0)
                    }
                }
                open = stillOpen
            }
        }
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The path of the program.
    ///   - arguments: Its arguments (without argv[0]).
    ///   - environment: Variables to set on top of the current environment.
    /// - Returns: The running child.
    package func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) -> Running {
        // Every pipe end is close-on-exec (the child gets its ends through dup2, which clears the flag), and
        // creation plus spawn happen under one lock: otherwise a child spawned by a concurrent test inherits
        // this child's pipe ends, and `wait()` never sees end-of-file.
        spawnLock.lock()
        defer { spawnLock.unlock() }
        var stdinPipe: [Int32] = [0, 0]
        var stdoutPipe: [Int32] = [0, 0]
        var stderrPipe: [Int32] = [0, 0]
        precondition(pipe(&stdinPipe) == 0 && pipe(&stdoutPipe) == 0 && pipe(&stderrPipe) == 0, "pipe failed")
        for descriptor in stdinPipe + stdoutPipe + stderrPipe {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        let (pid, result) = Self.spawn(executable, arguments, environment: environment, actions: &actions)
        precondition(result == 0, "cannot start \(executable): \(String(cString: strerror(result)))")
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        return Running(pid: pid, stdinWriter: stdinPipe[1], stdoutReader: stdoutPipe[0], stderrReader: stderrPipe[0])
    }

    /// `posix_spawn` with an empty signal mask and every signal at its default disposition (swift-stack.md §1,
    /// pitfall 8: a child otherwise inherits the test runner's blocked or ignored signals), the current environment
    /// plus `environment`, and the caller's file actions.
    ///
    /// - Returns: The child's pid, and `posix_spawn`'s result (0 on success).
    package static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t
    ) -> (pid: pid_t, result: Int32) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return (pid, result)
    }

    /// Copies an executable, holding the spawn lock so that no child spawned meanwhile inherits the open copy
    /// (which would make running the copy fail with ETXTBSY, "text file busy").
    ///
    /// - Parameters:
    ///   - source: The executable's path.
    ///   - destination: The copy's path.
    /// - Throws: The file system's error.
    package static func copyExecutable(_ source: String, to destination: String) throws {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    /// Runs `executable` to the end with `input` on its standard input.
    ///
    /// - Parameters:
    ///   - executable: The path of the program.
    ///   - arguments: Its arguments.
    ///   - input: Bytes for its standard input, which is then closed.
    ///   - environment: Variables to set on top of the current environment.
    /// - Returns: Its exit status and output.
    package func run(
        _ executable: String,
        _ arguments: [String],
        input: [UInt8] = [],
        environment: [String: String] = [:]
    ) -> ProcessResult {
        let child = start(executable, arguments, environment: environment)
        let feeder = Thread {
            child.write(input)
            child.closeInput()
        }
        feeder.start()
        return child.wait()
    }
}

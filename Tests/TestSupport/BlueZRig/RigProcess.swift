package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running rig process (dbus-daemon, bluezoo, a peripheral): our direct child, stopped and reaped by pid.
///
/// Unlike `TestSupport.ProcessRunner` it holds no pipes: output goes to a log file, and the child gets only
/// descriptors 0–2 (`posix_spawn_file_actions_addclosefrom_np`). Tests run in parallel, and a daemon that
/// inherited another test's pipe would keep that test's `wait()` from ever seeing end-of-file; with two
/// cooperative threads both blocked that way, the whole run hung.
package struct RigProcess: Sendable {
    package let pid: pid_t

    /// Starts `executable` through ``ProcessRunner/spawn(_:_:environment:actions:)``.
    ///
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments, without argv[0].
    ///   - environment: Variables set on top of the current environment.
    ///   - log: Where its stdout and stderr go (appended).
    /// - Returns: The running process.
    /// - Throws: ``RigError`` when `posix_spawn` fails.
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: String
    ) throws -> RigProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        if let closeFrom = closeFromAction {
            _ = closeFrom(&actions, 3)
        }
        let (pid, result) = ProcessRunner.spawn(executable, arguments, environment: environment, actions: &actions)
        guard result == 0 else {
            throw RigError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return RigProcess(pid: pid)
    }

    /// Kills the process and reaps it.
    package func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34+ has `posix_spawn_file_actions_addclosefrom_np`, but Swift's Glibc module does not import it.
    private static let closeFromAction: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()
}

import NRFLoaderKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into a clean exit with status 130: temporary output files are removed first, so an
/// interrupted command never leaves a partial file.
///
/// The signal handler only writes one byte to a pipe (the self-pipe pattern: `write` is async-signal-safe); a
/// thread waiting on the pipe does the cleanup. The handler is installed with `signal(2)` before the command runs,
/// so there is no window in which a signal is lost: dispatch signal sources register asynchronously and missed a
/// SIGINT sent right after start-up.
enum Interrupts {
    private static let temporaryFiles = Mutex<Set<String>>([])
    /// Whether `--json` was given: an interrupt that exits at once still ends stdout with its `error` object.
    private static let wantsJSON = Mutex(false)
    /// What the first interrupt does instead of exiting (an upload cancels its task so the device is told to abort).
    private static let firstInterrupt = Mutex<(@Sendable () -> Void)?>(nil)
    /// The self-pipe: a plain tuple of descriptors, safe to read from the signal handler once initialised.
    private static let pipeDescriptors: (read: Int32, write: Int32) = {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return (-1, -1) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }()

    /// Starts watching SIGINT and SIGTERM.
    ///
    /// Call once, before any output file is created.
    static func install(json: Bool) {
        wantsJSON.withLock { $0 = json }
        let descriptors = pipeDescriptors
        guard descriptors.read >= 0 else { return }
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(Interrupts.pipeDescriptors.write, &byte, 1)
            }
        }
        // A plain pthread rather than Foundation's Thread: Foundation would pull ICU into the static executable.
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { _ in
                Interrupts.waitForSignals()
                return nil
            }, nil)
        if created == 0 { pthread_detach(thread) }
    }

    /// The watcher thread: waits for the first signal, runs the handler or exits, then waits for a second one.
    private static func waitForSignals() {
        let descriptor = pipeDescriptors.read
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) < 0 && errno == EINTR {}
        if let handler = firstInterrupt.withLock({ handler in
            defer { handler = nil }
            return handler
        }) {
            handler()
            // A second interrupt exits at once.
            while read(descriptor, &byte, 1) < 0 && errno == EINTR {}
        }
        removeTemporaryFiles()
        Console.reportError(
            "interrupted before the command finished", status: ExitStatus.interrupted.rawValue,
            json: wantsJSON.withLock { $0 })
        _exit(ExitStatus.interrupted.rawValue)
    }

    /// Makes the first SIGINT or SIGTERM call `handler` instead of exiting; a second one exits with 130.
    ///
    /// - Parameter handler: Starts a clean shutdown (the command then exits with 130 itself).
    static func onFirstInterrupt(_ handler: @escaping @Sendable () -> Void) {
        firstInterrupt.withLock { $0 = handler }
    }

    static func register(temporaryFile path: String) {
        _ = temporaryFiles.withLock { $0.insert(path) }
    }

    static func unregister(temporaryFile path: String) {
        _ = temporaryFiles.withLock { $0.remove(path) }
    }

    private static func removeTemporaryFiles() {
        temporaryFiles.withLock { paths in
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}

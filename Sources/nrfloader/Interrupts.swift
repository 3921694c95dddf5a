import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into a clean exit with status 130: temporary output files are removed first, so an
/// interrupted command never leaves a partial file.
///
/// The signals are ignored at the process level and delivered through a dispatch source, so the cleanup runs on
/// an ordinary thread, not inside a signal handler.
enum Interrupts {
    private static let temporaryFiles = Mutex<Set<String>>([])
    /// Starts watching SIGINT and SIGTERM.
    ///
    /// Call once, before any output file is created.
    ///
    /// - Returns: The dispatch sources; keep them alive for as long as the watch should last.
    static func install() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                removeTemporaryFiles()
                _exit(ExitStatus.interrupted.rawValue)
            }
            source.resume()
            return source
        }
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

import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// Failures of the command line itself: files it could not read or write.
///
/// The library's own failures arrive as `UpdateError`; ``ExitStatus/init(for:)`` maps both to the exit status.
enum ToolError: Error, Sendable, CustomStringConvertible {
    /// The input path does not exist.
    case inputMissing(path: String)
    /// The input exists but cannot be opened or read.
    case inputUnreadable(path: String, reason: String)
    /// Reading failed after the input was opened.
    case readFailed(path: String, reason: String)
    /// The output file (or its temporary sibling) cannot be created.
    case cannotCreateOutput(path: String, reason: String)
    /// Writing or renaming the output failed.
    case writeFailed(path: String, reason: String)

    var description: String {
        switch self {
        case .inputMissing(let path): "'\(path)': no such file"
        case .inputUnreadable(let path, let reason): "'\(path)': cannot read: \(reason)"
        case .readFailed(let path, let reason): "'\(path)': read failed: \(reason)"
        case .cannotCreateOutput(let path, let reason): "'\(path)': cannot create output: \(reason)"
        case .writeFailed(let path, let reason): "'\(path)': write failed: \(reason)"
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .inputMissing, .inputUnreadable: .noInput
        case .readFailed, .writeFailed: .ioError
        case .cannotCreateOutput: .cannotCreate
        }
    }

    /// The failure as the library passes it on: the same message and exit status (for ``OutputFile``, which
    /// conversions write through).
    var updateError: UpdateError { UpdateError(description, exitStatus: exitStatus) }

    /// The last system call's error, as a reason: `no such file or directory`.
    static func describeErrno() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

/// Files the library could not read or create: an input, a key, a catalog or its images, a simulator's image folder.
///
/// It reaches a caller wrapped in an ``UpdateError``, whose exit status ``ExitStatus/of(_:)`` takes from
/// ``exitStatus``.
package enum FileFailure: Error, Sendable, CustomStringConvertible {
    /// The input path does not exist.
    case inputMissing(path: String)
    /// The input exists but cannot be opened or read.
    case inputUnreadable(path: String, reason: String)
    /// Reading failed after the input was opened.
    case readFailed(path: String, reason: String)
    /// A file or folder the library makes (or its temporary sibling) cannot be created.
    case cannotCreateOutput(path: String, reason: String)
    /// The input holds no data where the conversion needs some.
    case emptyBinary(path: String)

    package var description: String {
        switch self {
        case .inputMissing(let path): "'\(path)': no such file"
        case .inputUnreadable(let path, let reason): "'\(path)': cannot read: \(reason)"
        case .readFailed(let path, let reason): "'\(path)': read failed: \(reason)"
        case .cannotCreateOutput(let path, let reason): "'\(path)': cannot create output: \(reason)"
        case .emptyBinary(let path): "'\(path)': binary input is empty"
        }
    }

    /// The reason alone, without the path (for messages that name the path themselves).
    package var reason: String {
        switch self {
        case .inputMissing: "no such file"
        case .inputUnreadable(_, let reason), .readFailed(_, let reason), .cannotCreateOutput(_, let reason): reason
        case .emptyBinary: "binary input is empty"
        }
    }

    package var exitStatus: ExitStatus {
        switch self {
        case .inputMissing, .inputUnreadable: .noInput
        case .readFailed: .ioError
        case .cannotCreateOutput: .cannotCreate
        case .emptyBinary: .dataError
        }
    }
}

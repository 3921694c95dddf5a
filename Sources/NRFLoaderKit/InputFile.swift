#if canImport(Glibc)
    import Glibc
#endif

/// An input file or standard input (`-`), opened at once (so a missing input is reported before any output is
/// created) and read in chunks.
package final class InputFile {
    /// The path as the user gave it; `-` is standard input.
    package let path: String
    private let descriptor: Int32

    /// Opens `path`, or takes standard input for `-`.
    ///
    /// - Parameter path: The path, or `-`.
    /// - Throws: ``FileFailure/inputMissing(path:)`` or ``FileFailure/inputUnreadable(path:reason:)``.
    package init(path: String) throws {
        self.path = path
        descriptor = try Self.open(path)
    }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    /// The name used in messages: the path, or `<stdin>`.
    package var displayName: String { path == "-" ? "<stdin>" : path }

    /// The size of each read: 256 KiB keeps system calls rare (about 180 for a 47 MB hex file) while adding little
    /// to peak memory, which `convert` keeps near the size of its output.
    package static let chunkSize = 256 << 10

    /// Calls `body` with each chunk of the input until the end.
    ///
    /// - Parameter body: Receives each chunk; the buffer is valid only during the call.
    /// - Throws: ``FileFailure`` for a missing or unreadable input, or whatever `body` throws.
    package func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunkSize)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, Self.chunkSize)
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileFailure.readFailed(path: displayName, reason: Self.describeErrno())
            }
            try body(UnsafeBufferPointer(start: buffer, count: count))
        }
    }

    /// Reads the whole input.
    ///
    /// - Returns: Its bytes.
    /// - Throws: ``FileFailure`` for a missing or unreadable input.
    package func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }

    private static func open(_ path: String) throws -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw FileFailure.inputMissing(path: path) }
            throw FileFailure.inputUnreadable(path: path, reason: Self.describeErrno())
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw FileFailure.inputUnreadable(path: path, reason: "is a directory")
        }
        return descriptor
    }

    package static func describeErrno() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// A small input the command line reads itself, whole: a `--targets-from` list, from a file or standard input (`-`).
///
/// Firmware, keys and catalogs are the library's to read; this is for the command line's own inputs.
enum InputText {
    /// Reads `path` to the end.
    ///
    /// - Parameter path: The path, or `-` for standard input.
    /// - Returns: Its bytes.
    /// - Throws: ``ToolError/inputMissing(path:)``, ``ToolError/inputUnreadable(path:reason:)`` (a folder too) or
    ///   ``ToolError/readFailed(path:reason:)``.
    static func read(_ path: String) throws(ToolError) -> [UInt8] {
        let descriptor = try open(path)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path == "-" ? "<stdin>" : path, reason: ToolError.describeErrno())
            }
            bytes += buffer[..<count]
        }
    }

    private static func open(_ path: String) throws(ToolError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .inputMissing(path: path) }
            throw .inputUnreadable(path: path, reason: ToolError.describeErrno())
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw .inputUnreadable(path: path, reason: "is a directory")
        }
        return descriptor
    }
}

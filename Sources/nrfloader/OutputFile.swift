import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// An output that appears whole or not at all: a file written to a temporary sibling and renamed into place,
/// or standard output (`-`).
///
/// Until ``commit()`` an existing file at the path is untouched; an error, a thrown `body` or Ctrl-C (see
/// ``Interrupts``) removes the temporary file.
final class OutputFile: ConversionOutput {
    /// The path as the user gave it; `-` is standard output.
    let path: String
    private let descriptor: Int32
    private let temporaryPath: String?
    /// The permissions the file gets, before the umask.
    private let permissions: mode_t

    var displayName: String { path == "-" ? "<stdout>" : path }

    /// Opens the output: creates `.NAME.XXXXXX` beside `path`, or takes standard output.
    ///
    /// - Parameters:
    ///   - path: The final path, or `-`.
    ///   - permissions: The file's permissions before the umask: 0o666, or 0o600 for a secret such as a private key
    ///     (the temporary file is 0o600 from the start, so the secret is never readable by others).
    /// - Throws: ``ToolError/cannotCreateOutput(path:reason:)``, as an `UpdateError`.
    init(path: String, permissions: mode_t = 0o666) throws {
        self.path = path
        self.permissions = permissions
        if path == "-" {
            descriptor = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((directory + "." + name + ".XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> (Int32, String) in
            guard let base = buffer.baseAddress else { return (-1, "") }
            return (mkstemp(base), String(cString: base))
        }
        guard created.0 >= 0 else {
            throw ToolError.cannotCreateOutput(path: path, reason: ToolError.describeErrno()).updateError
        }
        descriptor = created.0
        temporaryPath = created.1
        Interrupts.register(temporaryFile: created.1)
    }

    deinit {
        discard()
    }

    /// Appends `bytes` to the output.
    ///
    /// - Parameter bytes: The bytes to write.
    /// - Throws: ``ToolError/writeFailed(path:reason:)``, as an `UpdateError`.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw ToolError.writeFailed(path: displayName, reason: ToolError.describeErrno()).updateError
            }
            base += written
            remaining -= written
        }
    }

    /// Appends `bytes` to the output.
    ///
    /// - Parameter bytes: The bytes to write.
    /// - Throws: ``ToolError/writeFailed(path:reason:)``, as an `UpdateError`.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try write($0) }
    }

    /// Makes the output visible: flushes the temporary file to disk and renames it over `path`.
    ///
    /// - Throws: ``ToolError/writeFailed(path:reason:)``, as an `UpdateError`.
    func commit() throws {
        guard let temporaryPath else { return }
        let mask = umask(0)
        umask(mask)
        guard fchmod(descriptor, permissions & ~mask) == 0, fsync(descriptor) == 0, close(descriptor) == 0 else {
            throw ToolError.writeFailed(path: path, reason: ToolError.describeErrno()).updateError
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = ToolError.describeErrno()
            unlink(temporaryPath)
            Interrupts.unregister(temporaryFile: temporaryPath)
            throw ToolError.writeFailed(path: path, reason: reason).updateError
        }
        Interrupts.unregister(temporaryFile: temporaryPath)
        committed = true
    }

    private var committed = false

    private func discard() {
        guard let temporaryPath, !committed else { return }
        close(descriptor)
        unlink(temporaryPath)
        Interrupts.unregister(temporaryFile: temporaryPath)
        committed = true
    }
}

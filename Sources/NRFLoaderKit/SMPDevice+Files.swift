import Checksums
import SMP
import SMPTargetAdapter

/// How far a file transfer has come.
public struct FileTransferProgress: Sendable, Equatable {
    /// Bytes the device confirmed (upload) or nrfloader received (download).
    public let bytesDone: Int
    /// The file's length.
    public let totalBytes: Int
}

/// What a finished file transfer did.
public struct FileTransfer: Sendable, Equatable {
    /// The file's length in bytes.
    public let length: Int
    /// Where an upload began: 0 for a download.
    ///
    /// Above 0 when the device already held the file's first bytes (checked against their hash) and the upload
    /// resumed after them; the file's length when the device held the whole file.
    public let resumedAt: Int
    /// A download's bytes; empty for an upload.
    public let bytes: [UInt8]
    /// The most file bytes one request (upload) or answer (download) carried.
    public let largestChunk: Int
    /// The device's SMP buffer size the requests were sized to (its MCUmgr parameters, or Zephyr's default 384).
    public let bufferSize: Int
}

/// Files on the device's file system (file system group, `fs_mgmt`): upload and download over one link, with
/// progress, lost answers sent again and the transfer going on from the device's offset.
extension SMPDevice {
    /// Writes `bytes` to `path` on the device.
    ///
    /// With `resume`, the device's file is looked at first (`fs status`, then `fs hash` SHA-256, or CRC-32 where the
    /// device has no SHA-256): when it holds the first part of `bytes`, the upload goes on after it, and when it holds
    /// all of them nothing is sent. A device without file status or hashes gets the whole file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - path: The path on the device (`/lfs/config.bin`), under a mount point.
    ///   - resume: Whether to go on from a matching part the device already holds.
    ///   - onProgress: Called after each chunk the device confirmed.
    /// - Returns: What the transfer did; ``ManagementReply/attempts`` is 1 plus the requests sent again.
    /// - Throws: ``UpdateError``; `FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND` for a path on no mount point.
    public func uploadFile(
        _ bytes: [UInt8], to path: String, resume: Bool = true,
        onProgress: @escaping @Sendable (FileTransferProgress) -> Void = { _ in }
    ) async throws(UpdateError) -> ManagementReply<FileTransfer> {
        let start = resume ? try await resumeOffset(bytes, path) : 0
        if start == bytes.count, start > 0 {
            let whole = FileTransfer(
                length: bytes.count, resumedAt: start, bytes: [], largestChunk: 0,
                bufferSize: SMPFileTransferConfiguration().defaultParameters.bufferSize)
            return ManagementReply(whole, attempts: 1)
        }
        return try await transfer(.upload(path: path, bytes: bytes, offset: start), onProgress)
    }

    /// Reads the file at `path` from the device.
    ///
    /// - Parameters:
    ///   - path: The path on the device.
    ///   - onProgress: Called after each chunk received.
    /// - Returns: The file, in ``FileTransfer/bytes``.
    /// - Throws: ``UpdateError``; `FS_MGMT_ERR_FILE_NOT_FOUND` for a missing file.
    public func downloadFile(
        _ path: String, onProgress: @escaping @Sendable (FileTransferProgress) -> Void = { _ in }
    ) async throws(UpdateError) -> ManagementReply<FileTransfer> {
        try await transfer(.download(path: path), onProgress)
    }

    /// Where an upload of `bytes` to `path` can begin: the length of the device's file when its hash matches the
    /// same first bytes of `bytes`, else 0.
    private func resumeOffset(_ bytes: [UInt8], _ path: String) async throws(UpdateError) -> Int {
        let held: Int
        do { held = try await fileStatus(path).value } catch {
            // A refusal (no such file, no status command) means nothing to resume; a lost link is the caller's.
            guard error.smpErrorCode != nil else { throw error }
            return 0
        }
        guard held > 0, held <= bytes.count else { return 0 }
        let prefix = Array(bytes.prefix(held))
        for type in ["sha256", "crc32"] {
            let hash: FileHash
            do { hash = try await fileHash(path, type: type).value } catch {
                guard error.smpErrorCode != nil else { throw error }
                continue
            }
            guard hash.length == held else { return 0 }
            switch hash.value {
            case .bytes(let digest): return digest == SHA256.hash(prefix) ? held : 0
            case .number(let number): return number == UInt64(CRC32.checksum(prefix)) ? held : 0
            }
        }
        return 0
    }

    private func transfer(
        _ direction: SMPFileTransfer.Direction, _ onProgress: @escaping @Sendable (FileTransferProgress) -> Void
    ) async throws(UpdateError) -> ManagementReply<FileTransfer> {
        guard let open = target.openManagementLink else {
            throw UpdateError(
                OptionError(message: "\(target) takes no SMP management requests (it is not an SMP device)"),
                status: .usage)
        }
        var configuration = SMPFileTransferConfiguration()
        if let timeout = options.timeout {
            configuration.connectionTimeout = timeout
            configuration.responseTimeout = timeout
        }
        let transport: any SMPTransport
        do { transport = try await open(options) } catch {
            if Task.isCancelled { throw UpdateError(UpdateFailure(.smpCommand(.cancelled), deviceWasReached: false)) }
            throw error
        }
        return try await Self.run(
            SMPFileTransfer(direction, configuration: configuration), over: transport, onProgress: onProgress,
            onLog: logger)
    }

    private static func run<Transport: SMPTransport>(
        _ transfer: SMPFileTransfer, over transport: Transport,
        onProgress: (FileTransferProgress) -> Void, onLog: (String) -> Void
    ) async throws(UpdateError) -> ManagementReply<FileTransfer> {
        let adapter = SMPFileTransferAdapter(transport: transport, transfer: transfer)
        let outcome = await adapter.run(
            onProgress: { onProgress(FileTransferProgress(bytesDone: $0, totalBytes: $1)) }, onLog: onLog)
        switch outcome {
        case .completed(let result):
            let value = FileTransfer(
                length: result.length, resumedAt: result.startOffset, bytes: result.bytes,
                largestChunk: result.largestChunk, bufferSize: result.bufferSize)
            return ManagementReply(value, attempts: 1 + result.resends)
        case .failed(let error, let reached):
            throw UpdateError(UpdateFailure(.smpCommand(error), deviceWasReached: reached))
        }
    }
}

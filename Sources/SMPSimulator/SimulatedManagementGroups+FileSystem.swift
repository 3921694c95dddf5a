import Checksums
import SMP

/// The file system group (`fs_mgmt.c`) on one LittleFS mount point: file upload and download, status, hash and
/// checksum (IEEE CRC-32, the default, and SHA-256), the supported types, and close.
///
/// As Zephyr's handlers:
/// - upload: `off` and `name` are required, and `len` with `off` 0; a first chunk truncates the file; a request at
///   the offset the transfer expects appends; at another offset it is `FS_MGMT_ERR_FILE_OFFSET_NOT_VALID` with the
///   expected offset as `len`, and the transfer is closed; a request that opens the file anew (another name, or
///   after a close) at an offset above 0 expects the file's current length, which is how a client resumes;
/// - download: a chunk of at most `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` − 47 bytes from `off`, with `len` on the
///   answer to offset 0;
/// - a path outside the mount point is `FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND` for an upload and
///   `FS_MGMT_ERR_FILE_NOT_FOUND` otherwise.
extension SimulatedManagementGroups {
    /// `CONFIG_MCUMGR_GRP_FS_PATH_LEN`, Zephyr's default.
    static let pathLength = 64

    mutating func fileSystem(_ id: UInt8, isWrite: Bool, _ body: CBORValue, bufferSize: Int) -> Answer? {
        switch (id, isWrite) {
        case (0, true): return upload(body)
        case (0, false): return download(body, chunk: max(16, bufferSize - 47))
        case (1, false): return status(body)
        case (2, false): return hash(body)
        case (3, false): return supportedHashes()
        case (4, true):
            transfer = nil
            return .ok(.map([]))
        default: return nil
        }
    }

    private var group: UInt16 { SMPGroupRequest.Group.fileSystem }

    private func isOnMount(_ path: String) -> Bool { path.hasPrefix(mountPoint + "/") }

    /// What `fs_mgmt_filelen` found.
    private enum Lookup {
        case success(Int)
        case failure(Int)
    }

    /// `fs_mgmt_filelen`: the length, `FS_MGMT_ERR_FILE_NOT_FOUND` or `FS_MGMT_ERR_FILE_IS_DIRECTORY`.
    private func fileLength(_ path: String) -> Lookup {
        if files[path] == nil && files.keys.contains(where: { $0.hasPrefix(path + "/") }) { return .failure(4) }
        guard let file = files[path] else { return .failure(3) }
        return .success(file.count)
    }

    private mutating func upload(_ body: CBORValue) -> Answer {
        guard let offset = body["off"]?.intValue, offset >= 0, case .text(let path)? = body["name"], !path.isEmpty,
            path.utf8.count <= Self.pathLength
        else { return .mcumgr(.invalidValue) }
        let length = body["len"]?.intValue
        if offset == 0, length == nil { return .mcumgr(.invalidValue) }
        var data: [UInt8] = []
        if case .bytes(let given)? = body["data"] { data = given }
        if let current = transfer, current.direction != .upload || current.path != path { transfer = nil }
        if transfer == nil {
            guard isOnMount(path) else { return .group(group, 14) }
            if files[path] == nil { files[path] = [] }
            transfer = FileTransfer(direction: .upload, path: path, offset: 0, length: 0)
        }
        if offset == 0 {
            transfer?.length = length ?? 0
        } else if transfer?.offset == 0 {
            transfer?.offset = files[path]?.count ?? 0
        }
        let expected = transfer?.offset ?? 0
        if offset > 0, offset != expected {
            transfer = nil
            return .groupError(group, 11, extra: [CBORMapEntry("len", .int(expected))])
        }
        if !data.isEmpty {
            if offset == 0 { files[path] = [] }
            files[path, default: []] += data
            transfer?.offset = expected + data.count
        }
        let reached = transfer?.offset ?? 0
        if let current = transfer, current.length > 0, reached >= current.length { transfer = nil }
        return .ok(.map([CBORMapEntry("off", .int(reached))]))
    }

    private mutating func download(_ body: CBORValue, chunk: Int) -> Answer {
        guard let offset = body["off"]?.intValue, offset >= 0, case .text(let path)? = body["name"], !path.isEmpty,
            path.utf8.count <= Self.pathLength
        else { return .mcumgr(.invalidValue) }
        if let current = transfer, current.direction != .download || current.path != path { transfer = nil }
        if transfer == nil {
            switch fileLength(path) {
            case .failure(let code): return .group(group, code)
            case .success(let length):
                transfer = FileTransfer(direction: .download, path: path, offset: 0, length: length)
            }
        }
        let file = files[path] ?? []
        let start = min(offset, file.count)
        let bytes = Array(file[start..<min(file.count, start + chunk)])
        transfer?.offset = start + bytes.count
        var entries = [CBORMapEntry("off", .int(offset)), CBORMapEntry("data", .bytes(bytes))]
        if offset == 0 { entries.append(CBORMapEntry("len", .int(file.count))) }
        if let current = transfer, current.length > 0, current.offset >= current.length { transfer = nil }
        return .ok(.map(entries))
    }

    private func status(_ body: CBORValue) -> Answer {
        guard case .text(let path)? = body["name"], !path.isEmpty, path.utf8.count <= Self.pathLength else {
            return .mcumgr(.invalidValue)
        }
        switch fileLength(path) {
        case .failure(let code): return .group(group, code)
        case .success(let length): return .ok(.map([CBORMapEntry("len", .int(length))]))
        }
    }

    /// `fs_mgmt_file_hash_checksum`: `type` (default `crc32`), `off`, `len` (the bytes to cover, default all).
    private func hash(_ body: CBORValue) -> Answer {
        guard case .text(let path)? = body["name"], !path.isEmpty, path.utf8.count <= Self.pathLength else {
            return .mcumgr(.invalidValue)
        }
        var type = "crc32"
        if case .text(let given)? = body["type"] { type = given }
        let offset = body["off"]?.intValue ?? 0
        let limit = body["len"]?.intValue
        if limit == 0 || type.utf8.count > 8 { return .mcumgr(.invalidValue) }
        guard type == "crc32" || type == "sha256" else { return .group(group, 13) }
        let length: Int
        switch fileLength(path) {
        case .failure(let code): return .group(group, code)
        case .success(let value): length = value
        }
        guard length > offset else { return .group(group, length == 0 ? 16 : 12) }
        let file = files[path] ?? []
        let covered = Array(file[offset..<min(file.count, offset + (limit ?? file.count))])
        let output: CBORValue =
            type == "sha256" ? .bytes(SHA256.hash(covered)) : .unsigned(UInt64(CRC32.checksum(covered)))
        var entries = [CBORMapEntry("type", .text(type))]
        if offset != 0 { entries.append(CBORMapEntry("off", .int(offset))) }
        entries += [CBORMapEntry("len", .int(covered.count)), CBORMapEntry("output", output)]
        return .ok(.map(entries))
    }

    private func supportedHashes() -> Answer {
        .ok(
            .map([
                CBORMapEntry(
                    "types",
                    .map([
                        CBORMapEntry("crc32", .map([CBORMapEntry("format", .int(0)), CBORMapEntry("size", .int(4))])),
                        CBORMapEntry(
                            "sha256", .map([CBORMapEntry("format", .int(1)), CBORMapEntry("size", .int(32))])),
                    ]))
            ]))
    }
}

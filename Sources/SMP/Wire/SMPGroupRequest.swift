/// A request of one of Zephyr's MCUmgr groups beside the image group: what the management verbs (`os`, `fs`,
/// `shell`, `stat`, `settings`, `enum`, `storage-erase`) send.
///
/// Group ids are `enum mcumgr_group_t` (`mgmt_defines.h`): OS 0, statistics 2, settings 3, file system 8, shell 9,
/// enumeration 10, Zephyr basic 63. Command ids and field names are the group headers' and handlers' under
/// `include/zephyr/mgmt/mcumgr/grp/` and `subsys/mgmt/mcumgr/grp/`: each constructor names its handler.
package struct SMPGroupRequest: Sendable, Equatable, CustomStringConvertible {
    /// The request's name in messages: "os taskstat".
    package var name: String
    /// The group id.
    package var group: UInt16
    /// The command id.
    package var id: UInt8
    /// Read or write.
    package var operation: SMPOperation
    /// The CBOR body.
    package var body: CBORValue
    /// Whether sending it again after a lost answer is harmless (a read, or a write that sets a value); a shell
    /// command, a commit or an erase is sent once.
    package var isRepeatable: Bool

    /// Creates a request.
    package init(
        _ name: String, group: UInt16, id: UInt8, operation: SMPOperation, body: CBORValue = .map([]),
        isRepeatable: Bool = true
    ) {
        self.name = name
        self.group = group
        self.id = id
        self.operation = operation
        self.body = body
        self.isRepeatable = isRepeatable
    }

    package var description: String { name }

    /// The request as a frame.
    ///
    /// - Parameters:
    ///   - sequence: The sequence number the answer will echo.
    ///   - version: The protocol version to ask in.
    /// - Returns: The frame.
    package func frame(sequence: UInt8, version: SMPVersion) -> SMPFrame {
        let header = SMPHeader(
            operation: operation, version: version, length: 0, group: group, sequence: sequence, command: id)
        return SMPFrame(header: header, body: body)
    }

    /// The group ids (`mgmt_defines.h`).
    package enum Group {
        /// `MGMT_GROUP_ID_OS`.
        package static let os: UInt16 = 0
        /// `MGMT_GROUP_ID_IMAGE`.
        package static let image: UInt16 = 1
        /// `MGMT_GROUP_ID_STAT`.
        package static let statistics: UInt16 = 2
        /// `MGMT_GROUP_ID_SETTINGS`.
        package static let settings: UInt16 = 3
        /// `MGMT_GROUP_ID_FS`.
        package static let fileSystem: UInt16 = 8
        /// `MGMT_GROUP_ID_SHELL`.
        package static let shell: UInt16 = 9
        /// `MGMT_GROUP_ID_ENUM`.
        package static let enumeration: UInt16 = 10
        /// `ZEPHYR_MGMT_GRP_BASIC` (`MGMT_GROUP_ID_PERUSER` − 1).
        package static let zephyrBasic: UInt16 = 63
    }

    // MARK: - OS (os_mgmt.c)

    /// `OS_MGMT_ID_TASKSTAT` (2), read: `{"tasks": {name: {prio, tid, state, stksiz, stkuse, runtime, …}}}`.
    package static let taskStatistics = SMPGroupRequest("os taskstat", group: Group.os, id: 2, operation: .read)
    /// `OS_MGMT_ID_MPSTAT` (3), read: mcumgr's memory pool statistics; Zephyr's os_mgmt has no handler (rc 8).
    package static let memoryPoolStatistics = SMPGroupRequest(
        "os mpstat", group: Group.os, id: 3, operation: .read)
    /// `OS_MGMT_ID_DATETIME_STR` (4), read: `{"datetime": "yyyy-MM-ddTHH:mm:ss[.SSS]"}`.
    package static let readDateTime = SMPGroupRequest("os datetime", group: Group.os, id: 4, operation: .read)
    /// `OS_MGMT_ID_DATETIME_STR` (4), write `{"datetime": text}`.
    package static func writeDateTime(_ text: String) -> SMPGroupRequest {
        SMPGroupRequest(
            "os datetime set", group: Group.os, id: 4, operation: .write,
            body: .map([CBORMapEntry("datetime", .text(text))]))
    }
    /// `OS_MGMT_ID_MCUMGR_PARAMS` (6), read: `{"buf_size", "buf_count"}`.
    package static let parameters = SMPGroupRequest("os params", group: Group.os, id: 6, operation: .read)
    /// `OS_MGMT_ID_INFO` (7), read `{"format": text}`: `{"output": text}`.
    package static func info(format: String?) -> SMPGroupRequest {
        SMPGroupRequest(
            "os info", group: Group.os, id: 7, operation: .read,
            body: .map(format.map { [CBORMapEntry("format", .text($0))] } ?? []))
    }
    /// `OS_MGMT_ID_BOOTLOADER_INFO` (8), read: `{}` answers `{"bootloader": name}`, `{"query": "mode"}` answers
    /// `{"mode": n}` (and `"no-downgrade": true` where MCUboot refuses downgrades).
    package static func bootloaderInfo(query: String?) -> SMPGroupRequest {
        SMPGroupRequest(
            "os bootloader info", group: Group.os, id: 8, operation: .read,
            body: .map(query.map { [CBORMapEntry("query", .text($0))] } ?? []))
    }

    // MARK: - Statistics (stat_mgmt.c)

    /// `STAT_MGMT_ID_LIST` (1), read: `{"stat_list": [name, …]}`.
    package static let statisticsList = SMPGroupRequest(
        "stat list", group: Group.statistics, id: 1, operation: .read)
    /// `STAT_MGMT_ID_SHOW` (0), read `{"name": group}`: `{"name", "fields": {name: value}}`.
    package static func statisticsShow(_ group: String) -> SMPGroupRequest {
        SMPGroupRequest(
            "stat read", group: Group.statistics, id: 0, operation: .read,
            body: .map([CBORMapEntry("name", .text(group))]))
    }

    // MARK: - Settings (settings_mgmt.c)

    /// `SETTINGS_MGMT_ID_READ_WRITE` (0), read `{"name", "max_size"?}`: `{"val": bytes, "max_size"?}`.
    package static func settingsRead(_ name: String, maximumSize: Int?) -> SMPGroupRequest {
        var entries = [CBORMapEntry("name", .text(name))]
        if let maximumSize { entries.append(CBORMapEntry("max_size", .int(maximumSize))) }
        return SMPGroupRequest("settings read", group: Group.settings, id: 0, operation: .read, body: .map(entries))
    }
    /// `SETTINGS_MGMT_ID_READ_WRITE` (0), write `{"name", "val": bytes}`.
    package static func settingsWrite(_ name: String, value: [UInt8]) -> SMPGroupRequest {
        SMPGroupRequest(
            "settings write", group: Group.settings, id: 0, operation: .write,
            body: .map([CBORMapEntry("name", .text(name)), CBORMapEntry("val", .bytes(value))]))
    }
    /// `SETTINGS_MGMT_ID_DELETE` (1), write `{"name"}`.
    package static func settingsDelete(_ name: String) -> SMPGroupRequest {
        SMPGroupRequest(
            "settings delete", group: Group.settings, id: 1, operation: .write,
            body: .map([CBORMapEntry("name", .text(name))]))
    }
    /// `SETTINGS_MGMT_ID_COMMIT` (2), write.
    package static let settingsCommit = SMPGroupRequest(
        "settings commit", group: Group.settings, id: 2, operation: .write, isRepeatable: false)
    /// `SETTINGS_MGMT_ID_LOAD_SAVE` (3), read: load.
    package static let settingsLoad = SMPGroupRequest(
        "settings load", group: Group.settings, id: 3, operation: .read)
    /// `SETTINGS_MGMT_ID_LOAD_SAVE` (3), write: save.
    package static let settingsSave = SMPGroupRequest(
        "settings save", group: Group.settings, id: 3, operation: .write)

    // MARK: - File system (fs_mgmt.c)

    /// `FS_MGMT_ID_FILE` (0), write `{"off", "data", "name", "len" on the first}`: `{"off"}`.
    package static func fileUpload(name: String, offset: Int, data: [UInt8], length: Int?) -> SMPGroupRequest {
        var entries = [CBORMapEntry("off", .int(offset)), CBORMapEntry("data", .bytes(data))]
        entries.append(CBORMapEntry("name", .text(name)))
        if let length { entries.append(CBORMapEntry("len", .int(length))) }
        return SMPGroupRequest("fs upload", group: Group.fileSystem, id: 0, operation: .write, body: .map(entries))
    }
    /// `FS_MGMT_ID_FILE` (0), read `{"off", "name"}`: `{"off", "data", "len" on the first}`.
    package static func fileDownload(name: String, offset: Int) -> SMPGroupRequest {
        SMPGroupRequest(
            "fs download", group: Group.fileSystem, id: 0, operation: .read,
            body: .map([CBORMapEntry("off", .int(offset)), CBORMapEntry("name", .text(name))]))
    }
    /// `FS_MGMT_ID_STAT` (1), read `{"name"}`: `{"len"}`.
    package static func fileStatus(_ name: String) -> SMPGroupRequest {
        SMPGroupRequest(
            "fs status", group: Group.fileSystem, id: 1, operation: .read,
            body: .map([CBORMapEntry("name", .text(name))]))
    }
    /// `FS_MGMT_ID_HASH_CHECKSUM` (2), read `{"name", "type"?}`: `{"type", "len", "output"}`.
    package static func fileHash(_ name: String, type: String?) -> SMPGroupRequest {
        var entries = [CBORMapEntry("name", .text(name))]
        if let type { entries.append(CBORMapEntry("type", .text(type))) }
        return SMPGroupRequest("fs hash", group: Group.fileSystem, id: 2, operation: .read, body: .map(entries))
    }
    /// `FS_MGMT_ID_SUPPORTED_HASH_CHECKSUM` (3), read: `{"types": {name: {"format", "size"}}}`.
    package static let supportedHashes = SMPGroupRequest(
        "fs supported hashes", group: Group.fileSystem, id: 3, operation: .read)
    /// `FS_MGMT_ID_OPENED_FILE` (4), write: close the file an upload or download left open.
    package static let fileClose = SMPGroupRequest("fs close", group: Group.fileSystem, id: 4, operation: .write)

    // MARK: - Shell (shell_mgmt.c), enumeration (enum_mgmt.c), Zephyr basic (basic_mgmt.c)

    /// `SHELL_MGMT_ID_EXEC` (0), write `{"argv": [text, …]}`: `{"o": output, "ret": status}`.
    package static func shellExecute(_ arguments: [String]) -> SMPGroupRequest {
        SMPGroupRequest(
            "shell exec", group: Group.shell, id: 0, operation: .write,
            body: .map([CBORMapEntry("argv", .array(arguments.map { .text($0) }))]), isRepeatable: false)
    }
    /// `ENUM_MGMT_ID_COUNT` (0), read: `{"count"}`.
    package static let enumerationCount = SMPGroupRequest(
        "enum count", group: Group.enumeration, id: 0, operation: .read)
    /// `ENUM_MGMT_ID_LIST` (1), read: `{"groups": [id, …]}`.
    package static let enumerationList = SMPGroupRequest(
        "enum list", group: Group.enumeration, id: 1, operation: .read)
    /// `ENUM_MGMT_ID_DETAILS` (3), read: `{"groups": [{"group", "name"?, "handlers"?}, …]}`.
    package static let enumerationDetails = SMPGroupRequest(
        "enum details", group: Group.enumeration, id: 3, operation: .read)
    /// `ZEPHYR_MGMT_GRP_BASIC_CMD_ERASE_STORAGE` (0), write: erase the `storage_partition`.
    package static let storageErase = SMPGroupRequest(
        "storage erase", group: Group.zephyrBasic, id: 0, operation: .write, isRepeatable: false)
}

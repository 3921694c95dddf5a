import SMP

/// The management groups beside the image group: OS (parameters, task and memory pool statistics, date and time,
/// application and bootloader info), statistics, settings, file system (status, hash), shell, enumeration and Zephyr
/// basic (storage erase). Each method sends one request as ``SMPDevice`` sends any (retried after a lost answer
/// where that is harmless) and reads the answer's fields, as Zephyr's handlers write them.
///
/// A group the device is built without answers `MGMT_ERR_ENOTSUP` (rc 8): the method throws ``UpdateError`` with
/// ``ExitStatus/protocolError`` and an ``UpdateError/smpErrorCode`` whose ``SMPErrorCode/isNotSupported`` is true.
extension SMPDevice {
    /// Reads the MCUmgr transport parameters (OS group, `CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS`).
    ///
    /// - Returns: The buffer size and count.
    /// - Throws: ``UpdateError``.
    public func parameters() async throws(UpdateError) -> ManagementReply<DeviceParameters> {
        try await answer(.parameters) { body throws(UpdateError) in
            DeviceParameters(
                bufferSize: try field(body, "buf_size", .parameters),
                bufferCount: try field(body, "buf_count", .parameters))
        }
    }

    /// Reads every thread's statistics (OS group, taskstat: `CONFIG_MCUMGR_GRP_OS_TASKSTAT`).
    ///
    /// - Returns: The threads, in the device's order.
    /// - Throws: ``UpdateError``.
    public func taskStatistics() async throws(UpdateError) -> ManagementReply<[DeviceTask]> {
        let request = SMPGroupRequest.taskStatistics
        return try await answer(request) { body throws(UpdateError) in
            guard case .map(let tasks)? = body["tasks"] else { throw malformed(request, "no \"tasks\" map") }
            var result: [DeviceTask] = []
            for entry in tasks {
                guard case .text(let name) = entry.key else { throw malformed(request, "a task without a name") }
                let task = entry.value
                result.append(
                    DeviceTask(
                        name: name, priority: try field(task, "prio", request), id: try field(task, "tid", request),
                        state: try field(task, "state", request), stackSize: task["stksiz"]?.intValue,
                        stackUsed: task["stkuse"]?.intValue,
                        runtime: task["runtime"]?.intValue.map { UInt64(max(0, $0)) }))
            }
            return result
        }
    }

    /// Reads the memory pools' statistics (OS group, mpstat).
    ///
    /// Zephyr's OS group has no such command: its devices answer `MGMT_ERR_ENOTSUP`.
    ///
    /// - Returns: The pools.
    /// - Throws: ``UpdateError``.
    public func memoryPoolStatistics() async throws(UpdateError) -> ManagementReply<[MemoryPool]> {
        let request = SMPGroupRequest.memoryPoolStatistics
        return try await answer(request) { body throws(UpdateError) in
            guard case .map(let pools)? = body["mpools"] else { throw malformed(request, "no \"mpools\" map") }
            var result: [MemoryPool] = []
            for entry in pools {
                guard case .text(let name) = entry.key else { throw malformed(request, "a pool without a name") }
                result.append(
                    MemoryPool(
                        name: name, blockSize: try field(entry.value, "blksiz", request),
                        blocks: try field(entry.value, "nblks", request),
                        free: try field(entry.value, "nfree", request),
                        minimumFree: try field(entry.value, "min", request)))
            }
            return result
        }
    }

    /// Reads the device's clock (OS group, datetime: `CONFIG_MCUMGR_GRP_OS_DATETIME`).
    ///
    /// - Returns: The time as the device writes it, `yyyy-MM-ddTHH:mm:ss` (with `.SSS` where it keeps milliseconds).
    /// - Throws: ``UpdateError``; `OS_MGMT_ERR_RTC_NOT_SET` before the clock was set.
    public func dateTime() async throws(UpdateError) -> ManagementReply<String> {
        let request = SMPGroupRequest.readDateTime
        return try await answer(request) { body throws(UpdateError) in try text(body, "datetime", request) }
    }

    /// Sets the device's clock (OS group, datetime).
    ///
    /// - Parameter text: `yyyy-MM-ddTHH:mm:ss` (Zephyr takes 19 to 25 characters).
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``; `MGMT_ERR_EINVAL` for a time the device cannot parse.
    public func setDateTime(_ text: String) async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.writeDateTime(text)) { _ throws(UpdateError) in () }
    }

    /// Reads the application's description (OS group, info: `CONFIG_MCUMGR_GRP_OS_INFO`), as `uname` prints it.
    ///
    /// - Parameter format: `uname`-style letters (`s` kernel name, `n` node, `r` release, `v` version, `b` build
    ///   date, `m` machine, `p` processor, `i` platform, `o` OS, `a` all), or `nil` for the kernel name.
    /// - Returns: The device's text, to escape before printing.
    /// - Throws: ``UpdateError``; `OS_MGMT_ERR_INVALID_FORMAT` for a letter the device does not know.
    public func applicationInfo(format: String? = nil) async throws(UpdateError) -> ManagementReply<String> {
        let request = SMPGroupRequest.info(format: format)
        return try await answer(request) { body throws(UpdateError) in try text(body, "output", request) }
    }

    /// Reads the bootloader's name and, for MCUboot, its mode (OS group, bootloader info:
    /// `CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO`): two requests, `{}` and `{"query": "mode"}`.
    ///
    /// - Returns: The bootloader; ``BootloaderInfo/mode`` is `nil` when the device does not answer the mode query.
    ///   ``ManagementReply/attempts`` is the most sends either request took.
    /// - Throws: ``UpdateError``; `MGMT_ERR_ENOTSUP` from a device built without the command.
    public func bootloaderInfo() async throws(UpdateError) -> ManagementReply<BootloaderInfo> {
        let introduce = SMPGroupRequest.bootloaderInfo(query: nil)
        let first = try await answer(introduce) { body throws(UpdateError) in try text(body, "bootloader", introduce) }
        guard first.value == "MCUboot" else {
            return ManagementReply(
                BootloaderInfo(name: first.value, mode: nil, refusesDowngrade: false), attempts: first.attempts)
        }
        let query = SMPGroupRequest.bootloaderInfo(query: "mode")
        let second: ManagementReply<(Int, Bool)?>
        do {
            second = try await answer(query) { body throws(UpdateError) in
                var refuses = false
                if case .bool(let value)? = body["no-downgrade"] { refuses = value }
                return (try field(body, "mode", query), refuses)
            }
        } catch {
            // An MCUboot whose application cannot tell its mode (OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER).
            guard error.smpErrorCode != nil else { throw error }
            second = ManagementReply(nil, attempts: 1)
        }
        let info = BootloaderInfo(
            name: first.value, mode: second.value.map { BootloaderMode(number: $0.0) },
            refusesDowngrade: second.value?.1 ?? false)
        return ManagementReply(info, attempts: max(first.attempts, second.attempts))
    }

    /// Runs a shell command on the device (shell group: `CONFIG_MCUMGR_GRP_SHELL`), sent once (a command that ran
    /// must not run twice).
    ///
    /// - Parameter arguments: The command and its arguments.
    /// - Returns: What it printed, and its status.
    /// - Throws: ``UpdateError``; `SHELL_MGMT_RET_RC_EMPTY_COMMAND` for no arguments.
    public func executeShellCommand(_ arguments: [String]) async throws(UpdateError) -> ManagementReply<ShellOutput> {
        let request = SMPGroupRequest.shellExecute(arguments)
        return try await answer(request) { body throws(UpdateError) in
            let status: Int = try body["ret"] != nil ? field(body, "ret", request) : field(body, "rc", request)
            return ShellOutput(output: try text(body, "o", request), status: status)
        }
    }

    /// Lists the statistics groups (statistics group: `CONFIG_MCUMGR_GRP_STAT`).
    ///
    /// - Returns: Their names.
    /// - Throws: ``UpdateError``.
    public func statisticsGroups() async throws(UpdateError) -> ManagementReply<[String]> {
        let request = SMPGroupRequest.statisticsList
        return try await answer(request) { body throws(UpdateError) in
            guard case .array(let names)? = body["stat_list"] else { throw malformed(request, "no \"stat_list\"") }
            return try names.map { value throws(UpdateError) in
                guard case .text(let name) = value else { throw malformed(request, "a group name is not text") }
                return name
            }
        }
    }

    /// Reads one statistics group.
    ///
    /// - Parameter group: The group's name.
    /// - Returns: Its fields.
    /// - Throws: ``UpdateError``; Zephyr answers an unknown group with `STAT_MGMT_ERR_INVALID_STAT_NAME` (3) under the
    ///   Zephyr basic group's id (63), which this method names as the statistics group's code.
    public func statistics(group: String) async throws(UpdateError) -> ManagementReply<StatisticsGroup> {
        let request = SMPGroupRequest.statisticsShow(group)
        do {
            return try await readStatistics(request, group)
        } catch {
            guard let code = error.smpErrorCode, code.group == Int(SMPGroupRequest.Group.zephyrBasic),
                let known = SMPGroupErrorCodes.explanation(group: SMPGroupRequest.Group.statistics, rc: code.rc)
            else { throw error }
            throw UpdateError(
                "device refused \(request): rc \(code.rc) (\(known.name): \(known.meaning); sent as group 63's)",
                exitStatus: .protocolError)
        }
    }

    private func readStatistics(_ request: SMPGroupRequest, _ group: String) async throws(UpdateError)
        -> ManagementReply<StatisticsGroup>
    {
        try await answer(request) { body throws(UpdateError) in
            guard case .map(let entries)? = body["fields"] else { throw malformed(request, "no \"fields\" map") }
            let fields = try entries.map { entry throws(UpdateError) -> StatisticsGroup.Field in
                guard case .text(let name) = entry.key, case .unsigned(let value) = entry.value else {
                    throw malformed(request, "a field is not a name and a number")
                }
                return StatisticsGroup.Field(name: name, value: value)
            }
            return StatisticsGroup(name: (try? text(body, "name", request)) ?? group, fields: fields)
        }
    }

    /// Reads a setting's running value (settings group: `CONFIG_MCUMGR_GRP_SETTINGS`).
    ///
    /// - Parameters:
    ///   - name: The setting's name (`root/key`).
    ///   - maximumSize: The most bytes to read, `nil` for the device's limit.
    /// - Returns: The value's bytes.
    /// - Throws: ``UpdateError``; `SETTINGS_MGMT_ERR_KEY_NOT_FOUND` for a setting that has no value.
    public func readSetting(_ name: String, maximumSize: Int? = nil) async throws(UpdateError)
        -> ManagementReply<[UInt8]>
    {
        let request = SMPGroupRequest.settingsRead(name, maximumSize: maximumSize)
        return try await answer(request) { body throws(UpdateError) in
            guard case .bytes(let value)? = body["val"] else { throw malformed(request, "no \"val\" bytes") }
            return value
        }
    }

    /// Sets a setting's running value (`settings save` stores it).
    ///
    /// - Parameters:
    ///   - name: The setting's name.
    ///   - value: The bytes.
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func writeSetting(_ name: String, value: [UInt8]) async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.settingsWrite(name, value: value)) { _ throws(UpdateError) in () }
    }

    /// Deletes a setting from the device's storage.
    ///
    /// - Parameter name: The setting's name.
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func deleteSetting(_ name: String) async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.settingsDelete(name)) { _ throws(UpdateError) in () }
    }

    /// Runs the application's settings commit handlers (sent once).
    ///
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func commitSettings() async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.settingsCommit) { _ throws(UpdateError) in () }
    }

    /// Loads the stored settings into the running application.
    ///
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func loadSettings() async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.settingsLoad) { _ throws(UpdateError) in () }
    }

    /// Saves the running settings to the device's storage.
    ///
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func saveSettings() async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.settingsSave) { _ throws(UpdateError) in () }
    }

    /// Lists the device's management groups (enumeration group: `CONFIG_MCUMGR_GRP_ENUM`): with names and handler
    /// counts where the device gives details (`CONFIG_MCUMGR_GRP_ENUM_DETAILS`), else their ids.
    ///
    /// - Returns: The groups, in the device's order.
    /// - Throws: ``UpdateError``.
    public func managementGroups() async throws(UpdateError) -> ManagementReply<[ManagementGroup]> {
        let details = SMPGroupRequest.enumerationDetails
        do {
            return try await answer(details) { body throws(UpdateError) in
                guard case .array(let groups)? = body["groups"] else { throw malformed(details, "no \"groups\"") }
                return try groups.map { group throws(UpdateError) in
                    var name: String?
                    if case .text(let text)? = group["name"] { name = text }
                    return ManagementGroup(
                        id: try field(group, "group", details), name: name, handlers: group["handlers"]?.intValue)
                }
            }
        } catch {
            guard error.smpErrorCode?.isNotSupported == true else { throw error }
            let list = SMPGroupRequest.enumerationList
            return try await answer(list) { body throws(UpdateError) in
                guard case .array(let ids)? = body["groups"] else { throw malformed(list, "no \"groups\"") }
                return try ids.map { id throws(UpdateError) in
                    guard let number = id.intValue else { throw malformed(list, "a group id is not a number") }
                    return ManagementGroup(id: number, name: nil, handlers: nil)
                }
            }
        }
    }

    /// Erases the device's storage partition, where settings are saved (Zephyr basic group:
    /// `CONFIG_MCUMGR_GRP_ZBASIC_STORAGE_ERASE`); sent once.
    ///
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``.
    public func eraseStorage() async throws(UpdateError) -> ManagementReply<Void> {
        try await answer(.storageErase) { _ throws(UpdateError) in () }
    }

    /// Reads a file's length (file system group: `CONFIG_MCUMGR_GRP_FS_FILE_STATUS`).
    ///
    /// - Parameter path: The file's path on the device (`/lfs/log.txt`).
    /// - Returns: Its length in bytes.
    /// - Throws: ``UpdateError``; `FS_MGMT_ERR_FILE_NOT_FOUND` for a missing file.
    public func fileStatus(_ path: String) async throws(UpdateError) -> ManagementReply<Int> {
        let request = SMPGroupRequest.fileStatus(path)
        return try await answer(request) { body throws(UpdateError) in try field(body, "len", request) }
    }

    /// Computes a hash or checksum of a file on the device (`CONFIG_MCUMGR_GRP_FS_CHECKSUM_HASH`).
    ///
    /// - Parameters:
    ///   - path: The file's path on the device.
    ///   - type: `crc32` or `sha256`, or `nil` for the device's default (CRC-32 where it has it).
    /// - Returns: The value and what it covers.
    /// - Throws: ``UpdateError``; `FS_MGMT_ERR_CHECKSUM_HASH_NOT_FOUND` for a type the device lacks.
    public func fileHash(_ path: String, type: String? = nil) async throws(UpdateError) -> ManagementReply<FileHash> {
        let request = SMPGroupRequest.fileHash(path, type: type)
        return try await answer(request) { body throws(UpdateError) in
            let value: FileHash.Value
            switch body["output"] {
            case .bytes(let bytes)?: value = .bytes(bytes)
            case .unsigned(let number)?: value = .number(number)
            default: throw malformed(request, "no \"output\" bytes or number")
            }
            return FileHash(
                type: try text(body, "type", request), length: try field(body, "len", request), value: value)
        }
    }

    /// Lists the hash and checksum types the device computes (`CONFIG_MCUMGR_GRP_FS_CHECKSUM_HASH_SUPPORTED_CMD`).
    ///
    /// - Returns: The types.
    /// - Throws: ``UpdateError``.
    public func fileHashTypes() async throws(UpdateError) -> ManagementReply<[FileHashType]> {
        let request = SMPGroupRequest.supportedHashes
        return try await answer(request) { body throws(UpdateError) in
            guard case .map(let types)? = body["types"] else { throw malformed(request, "no \"types\" map") }
            return try types.map { entry throws(UpdateError) in
                guard case .text(let name) = entry.key else { throw malformed(request, "a type without a name") }
                let format: Int = try field(entry.value, "format", request)
                return FileHashType(
                    name: name, isByteString: format == 1, size: try field(entry.value, "size", request))
            }
        }
    }

    /// Sends a request of another group and reads its answer's body.
    private func answer<Value: Sendable>(
        _ request: SMPGroupRequest, _ read: (CBORValue) throws(UpdateError) -> Value
    ) async throws(UpdateError) -> ManagementReply<Value> {
        let result = try await run(.group(request))
        guard case .answered(let body) = result.reply else { preconditionFailure("\(result.reply) for \(request)") }
        return ManagementReply(try read(body), attempts: result.attempts)
    }
}

/// A device answer that lacks what its request's answer has: a protocol error (76).
private func malformed(_ request: SMPGroupRequest, _ problem: String) -> UpdateError {
    UpdateError(UpdateFailure(.smpCommand(.protocolViolation("\(request) answer: \(problem)")), deviceWasReached: true))
}

/// An integer field of an answer.
private func field(_ body: CBORValue, _ key: String, _ request: SMPGroupRequest) throws(UpdateError) -> Int {
    guard let value = body[key]?.intValue else { throw malformed(request, "no integer \"\(key)\"") }
    return value
}

/// A text field of an answer.
private func text(_ body: CBORValue, _ key: String, _ request: SMPGroupRequest) throws(UpdateError) -> String {
    guard case .text(let value)? = body[key] else { throw malformed(request, "no text \"\(key)\"") }
    return value
}

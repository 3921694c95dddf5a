package import SMP

/// The MCUmgr groups of the simulated Zephyr device beside the image group, echo and reset: OS (task statistics,
/// date and time, parameters are the device's own, application info, bootloader info), statistics, settings, file
/// system, shell, enumeration and Zephyr basic (storage erase), each as Zephyr's handler answers (`os_mgmt.c`,
/// `stat_mgmt.c`, `settings_mgmt.c`, `fs_mgmt.c`, `shell_mgmt.c`, `enum_mgmt.c`, `basic_mgmt.c`).
///
/// A group that is not built in (``builtIn``) answers every command with `MGMT_ERR_ENOTSUP` (rc 8), as `smp.c` does
/// for a group no handler registered; so does a command the group has no handler for (mpstat, which Zephyr's os_mgmt
/// never had; a read of a write-only command). Group errors are `err {group, rc}` for v2 requests and the group's
/// translated `rc` for v1 (each group's `*_translate_error_code`).
package struct SimulatedManagementGroups: Sendable {
    /// The groups built in, by id (`SMPGroupRequest.Group`); OS and image are always there.
    package var builtIn: Set<UInt16> = [
        SMPGroupRequest.Group.statistics, SMPGroupRequest.Group.settings, SMPGroupRequest.Group.fileSystem,
        SMPGroupRequest.Group.shell, SMPGroupRequest.Group.enumeration, SMPGroupRequest.Group.zephyrBasic,
    ]
    /// The MCUboot mode `os bootloader info` reports (`enum mcuboot_mode`, MCUboot `boot_status.h`): 1, swap using
    /// scratch, the swap the simulated MCUboot does.
    package var bootloaderMode = 1
    /// The files, by path; every path is under the one mount point, ``mountPoint``.
    package var files: [String: [UInt8]] = ["/lfs/hello.txt": Array("Hello from a simulated Zephyr device\n".utf8)]
    /// The file system's mount point (LittleFS at `/lfs`, as Zephyr's samples mount it).
    package var mountPoint = "/lfs"
    /// The settings as the running application holds them (`settings_runtime_get`), by name.
    package var settings: [String: [UInt8]] = ["app/greeting": Array("hello".utf8), "app/count": [0x2A]]
    /// The settings in the storage partition (`settings_save` writes them, `settings_load` reads them back).
    package var storedSettings: [String: [UInt8]] = ["app/greeting": Array("hello".utf8), "app/count": [0x2A]]
    /// The settings roots the application registered handlers for; another root is `SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND`.
    package var settingsRoots: Set<String> = ["app"]
    /// The RTC's time as `os datetime` shows it, `nil` until set (`OS_MGMT_ERR_RTC_NOT_SET`).
    package var dateTime: String?
    /// Statistics groups and their fields, in registration order (Zephyr's smp_svr sample registers `smp_svr_stats`
    /// with `ticks`).
    package var statistics: [(group: String, fields: [(name: String, value: UInt64)])] = [
        ("smp_svr_stats", [("ticks", 0)])
    ]
    /// The file transfer in progress (`fs_mgmt_ctxt`).
    var transfer: FileTransfer?

    /// `fs_mgmt_ctxt`: an upload or download in progress.
    struct FileTransfer: Sendable, Equatable {
        enum Direction: Sendable, Equatable {
            case upload
            case download
        }

        var direction: Direction
        var path: String
        /// Expected offset of the next request.
        var offset: Int
        /// The file's whole length: from the first upload request, or the file's when a download opened it.
        var length: Int
    }

    package init() {}

    /// What a handler answered.
    enum Answer {
        /// Success, with the body.
        case ok(CBORValue)
        /// `smp_add_cmd_err(zse, group, rc)`, with entries that follow the error (fs upload's `len`).
        case groupError(UInt16, Int, extra: [CBORMapEntry])
        /// A bare MCUmgr code (`MGMT_ERR_EINVAL` for a malformed request).
        case mcumgr(MCUmgrError)

        static func group(_ group: UInt16, _ rc: Int) -> Answer { .groupError(group, rc, extra: []) }
    }

    /// Answers a request the image and OS handlers of ``SimulatedSMPDevice`` did not take.
    ///
    /// - Parameters:
    ///   - frame: The request.
    ///   - bufferSize: `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`, which sizes a download chunk.
    /// - Returns: The answer's body, or `nil` for a group or command that is not built in (rc 8).
    package mutating func answer(_ frame: SMPFrame, bufferSize: Int) -> CBORValue? {
        let header = frame.header
        let isWrite = header.operation == .write
        let answer: Answer?
        switch header.group {
        case SMPGroupRequest.Group.os: answer = os(header.command, isWrite: isWrite, frame.body)
        case let group where !builtIn.contains(group): answer = nil
        case SMPGroupRequest.Group.statistics: answer = statistics(header.command, isWrite: isWrite, frame.body)
        case SMPGroupRequest.Group.settings: answer = settings(header.command, isWrite: isWrite, frame.body)
        case SMPGroupRequest.Group.fileSystem:
            answer = fileSystem(header.command, isWrite: isWrite, frame.body, bufferSize: bufferSize)
        case SMPGroupRequest.Group.shell: answer = isWrite && header.command == 0 ? shell(frame.body) : nil
        case SMPGroupRequest.Group.enumeration: answer = enumeration(header.command, isWrite: isWrite, frame.body)
        case SMPGroupRequest.Group.zephyrBasic:
            answer = isWrite && header.command == 0 ? eraseStorage() : nil
        default: answer = nil
        }
        return answer.map { Self.encoded($0, version: header.version) }
    }

    private static func encoded(_ answer: Answer, version: SMPVersion) -> CBORValue {
        switch answer {
        case .ok(let body): return body
        case .mcumgr(let error): return .map([CBORMapEntry("rc", .int(error.rawValue))])
        case .groupError(let group, let rc, let extra):
            if version == .v2 {
                return .map(
                    [
                        CBORMapEntry(
                            "err", .map([CBORMapEntry("group", .int(Int(group))), CBORMapEntry("rc", .int(rc))]))
                    ]
                        + extra)
            }
            return .map([CBORMapEntry("rc", .int(translated(group: group, rc: rc)))] + extra)
        }
    }

    /// Each group's `*_translate_error_code`: a group code as a v1 client sees it.
    static func translated(group: UInt16, rc: Int) -> Int {
        let invalid = MCUmgrError.invalidValue.rawValue
        let noEntry = MCUmgrError.noEntry.rawValue
        let unknown = MCUmgrError.unknown.rawValue
        switch (group, rc) {
        case (SMPGroupRequest.Group.os, 2): return invalid
        case (SMPGroupRequest.Group.os, 3), (SMPGroupRequest.Group.os, 4): return noEntry
        case (SMPGroupRequest.Group.settings, 2): return invalid
        case (SMPGroupRequest.Group.settings, 3), (SMPGroupRequest.Group.settings, 4): return noEntry
        case (SMPGroupRequest.Group.fileSystem, 2), (SMPGroupRequest.Group.fileSystem, 13): return invalid
        case (SMPGroupRequest.Group.fileSystem, 3), (SMPGroupRequest.Group.fileSystem, 14): return noEntry
        case (SMPGroupRequest.Group.shell, 2), (SMPGroupRequest.Group.shell, 3): return invalid
        case (SMPGroupRequest.Group.enumeration, 2): return invalid
        case (SMPGroupRequest.Group.zephyrBasic, 2): return noEntry
        case (SMPGroupRequest.Group.zephyrBasic, 3), (SMPGroupRequest.Group.zephyrBasic, 4): return 0
        default: return unknown
        }
    }

    // MARK: - Enumeration (enum_mgmt.c)

    /// The registered groups, in the order `mgmt_groups_foreach` walks them here, with their handler counts.
    var registered: [(id: UInt16, name: String, handlers: Int)] {
        let all: [(UInt16, String, Int)] = [
            (SMPGroupRequest.Group.os, "os mgmt", 9), (SMPGroupRequest.Group.image, "img mgmt", 6),
            (SMPGroupRequest.Group.statistics, "stat mgmt", 2), (SMPGroupRequest.Group.settings, "settings mgmt", 4),
            (SMPGroupRequest.Group.fileSystem, "fs mgmt", 5), (SMPGroupRequest.Group.shell, "shell mgmt", 1),
            (SMPGroupRequest.Group.enumeration, "enum mgmt", 4),
            (SMPGroupRequest.Group.zephyrBasic, "zephyr basic mgmt", 1),
        ]
        return all.filter { $0.0 <= SMPGroupRequest.Group.image || builtIn.contains($0.0) }
            .map { (id: $0.0, name: $0.1, handlers: $0.2) }
    }

    private func enumeration(_ id: UInt8, isWrite: Bool, _ body: CBORValue) -> Answer? {
        guard !isWrite else { return nil }
        let groups = registered
        switch id {
        case 0: return .ok(.map([CBORMapEntry("count", .int(groups.count))]))
        case 1: return .ok(.map([CBORMapEntry("groups", .array(groups.map { .int(Int($0.id)) }))]))
        case 2:
            guard let index = body["index"]?.intValue, index >= 0 else { return .mcumgr(.invalidValue) }
            guard index < groups.count else { return .group(SMPGroupRequest.Group.enumeration, 4) }
            var entries = [CBORMapEntry("group", .int(Int(groups[index].id)))]
            if index == groups.count - 1 { entries.append(CBORMapEntry("end", .bool(true))) }
            return .ok(.map(entries))
        case 3:
            var wanted: Set<Int>?
            if case .array(let values)? = body["groups"] { wanted = Set(values.compactMap(\.intValue)) }
            let details = groups.filter { wanted?.contains(Int($0.id)) ?? true }.map { group in
                CBORValue.map([
                    CBORMapEntry("group", .int(Int(group.id))), CBORMapEntry("name", .text(group.name)),
                    CBORMapEntry("handlers", .int(group.handlers)),
                ])
            }
            return .ok(.map([CBORMapEntry("groups", .array(details))]))
        default: return nil
        }
    }

    // MARK: - Zephyr basic (basic_mgmt.c)

    /// `storage_erase`: the storage partition, where settings are saved, erased.
    private mutating func eraseStorage() -> Answer {
        storedSettings = [:]
        return .ok(.map([]))
    }
}

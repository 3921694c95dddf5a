/// The result codes of the MCUmgr groups beside the image group, as `err {group, rc}` carries them (SMP v2): C name
/// and the header's comment, lowercased.
///
/// From Zephyr's group headers: `enum os_mgmt_err_code_t` (`os_mgmt.h`), `enum stat_mgmt_err_code_t`
/// (`stat_mgmt.h`), `enum settings_mgmt_ret_code_t` (`settings_mgmt.h`), `enum fs_mgmt_err_code_t` (`fs_mgmt.h`),
/// `enum shell_mgmt_ret_code_t` (`shell_mgmt.h`), `enum enum_mgmt_err_code_t` (`enum_mgmt.h`) and
/// `enum zephyr_basic_group_err_code_t` (`zephyr_basic.h`).
package enum SMPGroupErrorCodes {
    /// The name and meaning of code `rc` of `group`, or `nil` for a group or code not listed here.
    ///
    /// - Parameters:
    ///   - group: The group id.
    ///   - rc: The code.
    /// - Returns: `(name, meaning)`.
    package static func explanation(group: UInt16, rc: Int) -> (name: String, meaning: String)? {
        guard let table = tables[group], table.indices.contains(rc) else { return nil }
        return table[rc]
    }

    private static let tables: [UInt16: [(name: String, meaning: String)]] = [
        SMPGroupRequest.Group.os: [
            ("OS_MGMT_ERR_OK", "no error"), ("OS_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("OS_MGMT_ERR_INVALID_FORMAT", "the provided format value is not valid"),
            ("OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER", "query was not recognized"),
            ("OS_MGMT_ERR_RTC_NOT_SET", "RTC is not set"), ("OS_MGMT_ERR_RTC_COMMAND_FAILED", "RTC command failed"),
            (
                "OS_MGMT_ERR_QUERY_RESPONSE_VALUE_NOT_VALID",
                "query was recognized but there is no valid value for the response"
            ),
            ("OS_MGMT_ERR_HEAP_STATS_FETCH_FAILED", "heap statistic fetch failed"),
        ],
        SMPGroupRequest.Group.statistics: [
            ("STAT_MGMT_ERR_OK", "no error"), ("STAT_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("STAT_MGMT_ERR_INVALID_GROUP", "the provided statistic group name was not found"),
            ("STAT_MGMT_ERR_INVALID_STAT_NAME", "the provided statistic name was not found"),
            ("STAT_MGMT_ERR_INVALID_STAT_SIZE", "the size of the statistic cannot be handled"),
            ("STAT_MGMT_ERR_WALK_ABORTED", "walk through of statistics was aborted"),
        ],
        SMPGroupRequest.Group.settings: [
            ("SETTINGS_MGMT_ERR_OK", "no error"), ("SETTINGS_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("SETTINGS_MGMT_ERR_KEY_TOO_LONG", "the provided key name is too long to be used"),
            ("SETTINGS_MGMT_ERR_KEY_NOT_FOUND", "the provided key name does not exist"),
            ("SETTINGS_MGMT_ERR_READ_NOT_SUPPORTED", "the provided key name does not support being read"),
            ("SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND", "the provided root key name does not exist"),
            ("SETTINGS_MGMT_ERR_WRITE_NOT_SUPPORTED", "the provided key name does not support being written"),
            ("SETTINGS_MGMT_ERR_DELETE_NOT_SUPPORTED", "the provided key name does not support being deleted"),
        ],
        SMPGroupRequest.Group.fileSystem: [
            ("FS_MGMT_ERR_OK", "no error"), ("FS_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("FS_MGMT_ERR_FILE_INVALID_NAME", "the specified file name is not valid"),
            ("FS_MGMT_ERR_FILE_NOT_FOUND", "the specified file does not exist"),
            ("FS_MGMT_ERR_FILE_IS_DIRECTORY", "the specified file is a directory, not a file"),
            ("FS_MGMT_ERR_FILE_OPEN_FAILED", "error occurred whilst attempting to open a file"),
            ("FS_MGMT_ERR_FILE_SEEK_FAILED", "error occurred whilst attempting to seek to an offset in a file"),
            ("FS_MGMT_ERR_FILE_READ_FAILED", "error occurred whilst attempting to read data from a file"),
            ("FS_MGMT_ERR_FILE_TRUNCATE_FAILED", "error occurred whilst trying to truncate file"),
            ("FS_MGMT_ERR_FILE_DELETE_FAILED", "error occurred whilst trying to delete file"),
            ("FS_MGMT_ERR_FILE_WRITE_FAILED", "error occurred whilst attempting to write data to a file"),
            ("FS_MGMT_ERR_FILE_OFFSET_NOT_VALID", "the specified data offset is not valid"),
            (
                "FS_MGMT_ERR_FILE_OFFSET_LARGER_THAN_FILE",
                "the requested offset is larger than the size of the file on the device"
            ),
            (
                "FS_MGMT_ERR_CHECKSUM_HASH_NOT_FOUND",
                "the requested checksum or hash type was not found or is not supported by this build"
            ),
            ("FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND", "the specified mount point was not found or is not mounted"),
            ("FS_MGMT_ERR_READ_ONLY_FILESYSTEM", "the specified mount point is that of a read-only filesystem"),
            ("FS_MGMT_ERR_FILE_EMPTY", "the operation cannot be performed because the file is empty"),
            ("FS_MGMT_ERR_FILE_CLOSE_FAILED", "error occurred whilst attempting to close a file"),
        ],
        SMPGroupRequest.Group.shell: [
            ("SHELL_MGMT_RET_RC_OK", "no error"), ("SHELL_MGMT_RET_RC_UNKNOWN", "unknown error occurred"),
            ("SHELL_MGMT_RET_RC_COMMAND_TOO_LONG", "the provided command to execute is too long"),
            ("SHELL_MGMT_RET_RC_EMPTY_COMMAND", "no command to execute was provided"),
        ],
        SMPGroupRequest.Group.enumeration: [
            ("ENUM_MGMT_ERR_OK", "no error"), ("ENUM_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("ENUM_MGMT_ERR_TOO_MANY_GROUP_ENTRIES", "too many entries were provided"),
            ("ENUM_MGMT_ERR_INSUFFICIENT_HEAP_FOR_ENTRIES", "insufficient heap memory to store entry data"),
            ("ENUM_MGMT_ERR_INDEX_TOO_LARGE", "provided index is larger than the number of supported groups"),
        ],
        SMPGroupRequest.Group.zephyrBasic: [
            ("ZEPHYRBASIC_MGMT_ERR_OK", "no error"), ("ZEPHYRBASIC_MGMT_ERR_UNKNOWN", "unknown error occurred"),
            ("ZEPHYRBASIC_MGMT_ERR_FLASH_OPEN_FAILED", "opening of the flash area has failed"),
            ("ZEPHYRBASIC_MGMT_ERR_FLASH_CONFIG_QUERY_FAIL", "querying the flash area parameters has failed"),
            ("ZEPHYRBASIC_MGMT_ERR_FLASH_ERASE_FAILED", "erasing the flash area has failed"),
        ],
    ]
}

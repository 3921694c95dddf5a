/// The SMP groups an update uses (`enum mcumgr_group_t`, `mgmt_defines.h`).
package enum SMPGroup: UInt16, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `MGMT_GROUP_ID_OS`.
    case os = 0
    /// `MGMT_GROUP_ID_IMAGE`.
    case image = 1

    package var description: String { self == .os ? "OS group" : "image group" }
}

/// The commands nrfloader sends: a group, a command id and the operation.
///
/// Ids from `os_mgmt.h` (`OS_MGMT_ID_ECHO` 0, `OS_MGMT_ID_RESET` 5, `OS_MGMT_ID_MCUMGR_PARAMS` 6) and `img_mgmt.h`
/// (`IMG_MGMT_ID_STATE` 0, `IMG_MGMT_ID_UPLOAD` 1, `IMG_MGMT_ID_ERASE` 5).
package enum SMPCommand: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// OS 0, write: echo a string.
    case echo
    /// OS 5, write: reset the device.
    case reset
    /// OS 6, read: the SMP buffer size and count.
    case parameters
    /// OS 8, read: the bootloader's name, or with `query: "mode"` MCUboot's mode (`OS_MGMT_ID_BOOTLOADER_INFO`).
    case bootloaderInfo
    /// Image 0, read: the slots' state.
    case readImageState
    /// Image 0, write: mark an image for test or confirm it.
    case writeImageState
    /// Image 1, write: one chunk of an image.
    case upload
    /// Image 5, write: erase the secondary slot.
    case erase

    /// The group.
    package var group: SMPGroup {
        switch self {
        case .echo, .reset, .parameters, .bootloaderInfo: .os
        case .readImageState, .writeImageState, .upload, .erase: .image
        }
    }

    /// The command id within the group.
    package var id: UInt8 {
        switch self {
        case .echo, .readImageState, .writeImageState: 0
        case .upload: 1
        case .reset, .erase: 5
        case .parameters: 6
        case .bootloaderInfo: 8
        }
    }

    /// The request operation.
    package var operation: SMPOperation {
        switch self {
        case .parameters, .readImageState, .bootloaderInfo: .read
        case .echo, .reset, .writeImageState, .upload, .erase: .write
        }
    }

    /// The command a request header names, or `nil` for one nrfloader does not know.
    ///
    /// - Parameters:
    ///   - group: The header's group.
    ///   - id: The header's command id.
    ///   - operation: The request operation (read or write; a response's is mapped back).
    package init?(group: UInt16, id: UInt8, operation: SMPOperation) {
        let isWrite = operation == .write || operation == .writeResponse
        guard
            let match = Self.allCases.first(where: { command in
                command.group.rawValue == group && command.id == id && (command.operation == .write) == isWrite
            })
        else { return nil }
        self = match
    }

    /// The command's name in messages: "image upload".
    package var description: String {
        switch self {
        case .echo: "echo"
        case .reset: "reset"
        case .parameters: "MCUmgr parameters"
        case .bootloaderInfo: "bootloader info"
        case .readImageState: "image state read"
        case .writeImageState: "image state write"
        case .upload: "image upload"
        case .erase: "image erase"
        }
    }
}

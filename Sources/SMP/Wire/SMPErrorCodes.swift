/// MCUmgr's generic result codes (`enum mcumgr_err_t`, Zephyr `include/zephyr/mgmt/mcumgr/mgmt/mgmt_defines.h`):
/// the `rc` of an SMP v1 answer, and of a v2 answer for errors that belong to no group (an unknown group or command
/// is `notSupported`, 8, in both versions: `smp.c`).
package enum MCUmgrError: Int, Sendable, Equatable, CaseIterable {
    case ok = 0
    case unknown = 1
    case noMemory = 2
    case invalidValue = 3
    case timeout = 4
    case noEntry = 5
    case badState = 6
    case messageTooLarge = 7
    case notSupported = 8
    case corrupt = 9
    case busy = 10
    case accessDenied = 11
    case protocolTooOld = 12
    case protocolTooNew = 13

    /// The C name.
    package var name: String {
        switch self {
        case .ok: "MGMT_ERR_EOK"
        case .unknown: "MGMT_ERR_EUNKNOWN"
        case .noMemory: "MGMT_ERR_ENOMEM"
        case .invalidValue: "MGMT_ERR_EINVAL"
        case .timeout: "MGMT_ERR_ETIMEOUT"
        case .noEntry: "MGMT_ERR_ENOENT"
        case .badState: "MGMT_ERR_EBADSTATE"
        case .messageTooLarge: "MGMT_ERR_EMSGSIZE"
        case .notSupported: "MGMT_ERR_ENOTSUP"
        case .corrupt: "MGMT_ERR_ECORRUPT"
        case .busy: "MGMT_ERR_EBUSY"
        case .accessDenied: "MGMT_ERR_EACCESSDENIED"
        case .protocolTooOld: "MGMT_ERR_UNSUPPORTED_TOO_OLD"
        case .protocolTooNew: "MGMT_ERR_UNSUPPORTED_TOO_NEW"
        }
    }

    /// The header's comment, lowercased.
    package var meaning: String {
        switch self {
        case .ok: "no error"
        case .unknown: "unknown error"
        case .noMemory: "insufficient memory"
        case .invalidValue: "error in input value"
        case .timeout: "operation timed out"
        case .noEntry: "no such file or entry"
        case .badState: "current state disallows command"
        case .messageTooLarge: "response too large"
        case .notSupported: "command not supported"
        case .corrupt: "corrupt"
        case .busy: "command blocked by processing of other command"
        case .accessDenied: "access denied"
        case .protocolTooOld: "requested SMP protocol version is too old"
        case .protocolTooNew: "requested SMP protocol version is too new"
        }
    }
}

/// The image group's result codes (`enum img_mgmt_err_code_t`, Zephyr
/// `include/zephyr/mgmt/mcumgr/grp/img_mgmt/img_mgmt.h`): the `rc` of `err {group: 1, rc}` in SMP v2.
///
/// For a v1 request Zephyr translates them to ``MCUmgrError`` (`img_mgmt_translate_error_code`, `img_mgmt.c`):
/// `imageAlreadyPending` (28) reaches a v1 client as `badState` (6).
package enum ImageManagementError: Int, Sendable, Equatable, CaseIterable {
    case ok = 0
    case unknown
    case flashConfigQueryFailed
    case noImage
    case noTLVs
    case invalidTLV
    case multipleHashesFound
    case invalidTLVSize
    case hashNotFound
    case noFreeSlot
    case flashOpenFailed
    case flashReadFailed
    case flashWriteFailed
    case flashEraseFailed
    case invalidSlot
    case noFreeMemory
    case flashContextAlreadySet
    case flashContextNotSet
    case flashAreaDeviceNull
    case invalidPageOffset
    case invalidOffset
    case invalidLength
    case invalidImageHeader
    case invalidImageHeaderMagic
    case invalidHash
    case invalidFlashAddress
    case versionGetFailed
    case currentVersionIsNewer
    case imageAlreadyPending
    case invalidImageVectorTable
    case imageTooLarge
    case imageDataOverrun
    case confirmationDenied
    case settingTestToActiveDenied
    case activeSlotNotKnown

    /// The C name.
    package var name: String {
        "IMG_MGMT_ERR_" + Self.names[rawValue].name
    }

    /// The header's comment, lowercased.
    package var meaning: String { Self.names[rawValue].meaning }

    private static let names: [(name: String, meaning: String)] = [
        ("OK", "no error"),
        ("UNKNOWN", "unknown error"),
        ("FLASH_CONFIG_QUERY_FAIL", "failed to query flash area configuration"),
        ("NO_IMAGE", "there is no image in the slot"),
        ("NO_TLVS", "the image in the slot has no TLVs"),
        ("INVALID_TLV", "the image in the slot has an invalid TLV type or length"),
        ("TLV_MULTIPLE_HASHES_FOUND", "the image in the slot has multiple hash TLVs"),
        ("TLV_INVALID_SIZE", "the image in the slot has an invalid TLV size"),
        ("HASH_NOT_FOUND", "no image with that hash, or the image has no hash TLV"),
        ("NO_FREE_SLOT", "there is no free slot to place the image"),
        ("FLASH_OPEN_FAILED", "flash area opening failed"),
        ("FLASH_READ_FAILED", "flash area reading failed"),
        ("FLASH_WRITE_FAILED", "flash area writing failed"),
        ("FLASH_ERASE_FAILED", "flash area erase failed"),
        ("INVALID_SLOT", "the provided slot is not valid"),
        ("NO_FREE_MEMORY", "insufficient heap memory"),
        ("FLASH_CONTEXT_ALREADY_SET", "the flash context is already set"),
        ("FLASH_CONTEXT_NOT_SET", "the flash context is not set"),
        ("FLASH_AREA_DEVICE_NULL", "the device for the flash area is NULL"),
        ("INVALID_PAGE_OFFSET", "the offset for a page number is invalid"),
        ("INVALID_OFFSET", "the offset parameter was not provided and is required"),
        ("INVALID_LENGTH", "the length parameter was not provided and is required"),
        ("INVALID_IMAGE_HEADER", "the image length is smaller than the size of an image header"),
        ("INVALID_IMAGE_HEADER_MAGIC", "the image header magic value does not match"),
        ("INVALID_HASH", "the hash parameter provided is not valid"),
        ("INVALID_FLASH_ADDRESS", "the image load address does not match the address of the flash area"),
        ("VERSION_GET_FAILED", "failed to get the version of the running application"),
        ("CURRENT_VERSION_IS_NEWER", "the running application is newer than the version being uploaded"),
        ("IMAGE_ALREADY_PENDING", "there is already an image operation pending"),
        ("INVALID_IMAGE_VECTOR_TABLE", "the image vector table is invalid"),
        ("INVALID_IMAGE_TOO_LARGE", "the image is too large to fit"),
        ("INVALID_IMAGE_DATA_OVERRUN", "more data was sent than the provided image size"),
        ("IMAGE_CONFIRMATION_DENIED", "confirmation of the image has been denied"),
        ("IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", "setting test to the active slot is not allowed"),
        ("ACTIVE_SLOT_NOT_KNOWN", "the active slot for the image cannot be determined"),
    ]
}

/// A non-zero result a device answered with, in either form.
package struct SMPDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the code comes from.
    package enum Source: Sendable, Equatable {
        /// A bare `rc`: an ``MCUmgrError`` (every SMP v1 answer; v2 answers to unknown commands).
        case mcumgr
        /// `err {group, rc}` (SMP v2): a code of that group.
        case group(UInt16)
    }

    /// Where the code comes from.
    package var source: Source
    /// The code.
    package var rc: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - source: Where the code comes from.
    ///   - rc: The code.
    package init(source: Source, rc: Int) {
        self.source = source
        self.rc = rc
    }

    /// The code's C name and meaning, when known: `IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already …`.
    package var explanation: String? {
        switch source {
        case .mcumgr:
            return MCUmgrError(rawValue: rc).map { "\($0.name): \($0.meaning)" }
        case .group(let group):
            guard group == SMPGroup.image.rawValue else {
                return SMPGroupErrorCodes.explanation(group: group, rc: rc).map { "\($0.name): \($0.meaning)" }
            }
            return ImageManagementError(rawValue: rc).map { "\($0.name): \($0.meaning)" }
        }
    }

    /// `rc 28 (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already an image operation pending)`.
    package var description: String {
        if let explanation { return "rc \(rc) (\(explanation))" }
        if case .group(let group) = source { return "rc \(rc) of group \(group)" }
        return "rc \(rc)"
    }

    /// Whether this is the image group's `IMAGE_ALREADY_PENDING` (v2) or its v1 translation `EBADSTATE`.
    package var isImageAlreadyPending: Bool {
        switch source {
        case .mcumgr: rc == MCUmgrError.badState.rawValue
        case .group(let group):
            group == SMPGroup.image.rawValue && rc == ImageManagementError.imageAlreadyPending.rawValue
        }
    }

    /// Whether the device said it does not know the command (`MGMT_ERR_ENOTSUP`, 8).
    package var isNotSupported: Bool {
        source == .mcumgr && rc == MCUmgrError.notSupported.rawValue
    }
}

package import SMP

/// A result code an SMP (MCUmgr) device refused a request with, decoded: a bare `rc` (every SMP v1 answer, and an
/// unknown group or command in v2), or a group's `err {group, rc}` (SMP v2).
///
/// Names and meanings come from Zephyr's headers: `enum mcumgr_err_t` (`mgmt_defines.h`) for bare codes,
/// `enum img_mgmt_err_code_t` (`img_mgmt.h`) for the image group's, and the other groups' headers (OS, statistics,
/// settings, file system, shell, enumeration, Zephyr basic) for theirs. ``UpdateError/smpErrorCode`` carries it.
public struct SMPErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The management group the code belongs to (1 for the image group), or `nil` for MCUmgr's generic codes.
    public let group: Int?
    /// The code.
    public let rc: Int
    /// The code's C name when it is known, such as `IMG_MGMT_ERR_IMAGE_ALREADY_PENDING` or `MGMT_ERR_ENOTSUP`.
    public let name: String?
    /// What the code means, from the header's comment, when it is known.
    public let meaning: String?

    /// `rc 8 (MGMT_ERR_ENOTSUP: command not supported)`, or without a known name `rc 12 of group 64`.
    public var description: String {
        if let name, let meaning { return "rc \(rc) (\(name): \(meaning))" }
        if let group { return "rc \(rc) of group \(group)" }
        return "rc \(rc)"
    }

    /// Whether the device does not know the command (`MGMT_ERR_ENOTSUP`, 8): the group or command is not built in.
    public var isNotSupported: Bool {
        group == nil && rc == MCUmgrError.notSupported.rawValue
    }

    package init(_ error: SMPDeviceError) {
        rc = error.rc
        switch error.source {
        case .mcumgr:
            group = nil
            let known = MCUmgrError(rawValue: error.rc)
            name = known?.name
            meaning = known?.meaning
        case .group(let number):
            group = Int(number)
            if number == SMPGroup.image.rawValue {
                let known = ImageManagementError(rawValue: error.rc)
                name = known?.name
                meaning = known?.meaning
            } else {
                let known = SMPGroupErrorCodes.explanation(group: number, rc: error.rc)
                name = known?.name
                meaning = known?.meaning
            }
        }
    }
}

extension UpdateError {
    /// The result code the device refused an SMP request with (a management command's, or an SMP update's), or `nil`
    /// when the failure is not a refusal.
    ///
    /// The ``exitStatus`` of a refusal is ``ExitStatus/protocolError``.
    public var smpErrorCode: SMPErrorCode? {
        (underlying as? UpdateFailure)?.smpDeviceError.map(SMPErrorCode.init)
    }
}

/// An option of a package or a settings page, as the library's public options call it.
///
/// The engine names options in its messages by ``description``, the property of `FirmwarePackage.SecureOptions`,
/// `FirmwarePackage.LegacyOptions` or `BootloaderSettingsPage.Options` that holds them; a front end with names of
/// its own (a command line's flags) renders the typed ``PackageOptionProblem`` instead.
package enum PackageOption: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case application
    case applicationVersion
    case applicationVersionString
    case bootloader
    case bootloaderVersion
    case softdevice
    case hwVersion
    case sdReq
    case sdId
    case externalApp
    case keyFile
    case devType
    case devRevision
    case dfuVersion
    case settingsVersion
    case backupAddress
    case noBackup
    case appBootValidation
    case sdBootValidation

    /// The public option's name: `hardwareVersion`.
    package var description: String {
        switch self {
        case .application: "application"
        case .applicationVersion: "applicationVersion"
        case .applicationVersionString: "applicationVersionString"
        case .bootloader: "bootloader"
        case .bootloaderVersion: "bootloaderVersion"
        case .softdevice: "softDevice"
        case .hwVersion: "hardwareVersion"
        case .sdReq: "softDeviceRequirements"
        case .sdId: "softDeviceIDs"
        case .externalApp: "isExternalApplication"
        case .keyFile: "signingKey"
        case .devType: "deviceType"
        case .devRevision: "deviceRevision"
        case .dfuVersion: "dfuVersion"
        case .settingsVersion: "settingsVersion"
        case .backupAddress: "backupAddress"
        case .noBackup: "includesBackup"
        case .appBootValidation: "applicationBootValidation"
        case .sdBootValidation: "softDeviceBootValidation"
        }
    }
}

/// An option value or combination nrfutil refuses (a usage error: exit 64), naming the options.
package enum PackageOptionProblem: Sendable, Equatable, CustomStringConvertible {
    /// Neither an application, a bootloader nor a SoftDevice.
    case noImage
    /// A bootloader and an application without a SoftDevice: nrfutil wants two packages.
    case bootloaderWithApplicationNeedsSoftDevice
    /// A number that is not one, or does not fit its field.
    case invalidNumber(PackageOption, NumberFault)
    /// A list option given more than once (nrfutil takes one comma-separated list).
    case givenMoreThanOnce(PackageOption)
    /// A version given for an image that is not in the package.
    case givenWithoutImage(PackageOption, image: PackageOption)
    /// None of `options` given, although required (with `with`, when they are only required with those).
    case missing([PackageOption], with: [PackageOption])
    /// The first option needs the second.
    case needs(PackageOption, PackageOption)
    /// An external application with a SoftDevice or a bootloader.
    case externalApplicationWithOtherImages
    /// ECDSA boot validation of a package's image without a key to sign it with.
    case signatureNeedsKey
    /// ECDSA boot validation in a settings page without a key.
    case keyRequiredForSignatureValidation
    /// A legacy init packet version other than 0.5 and 0.6.
    case unsupportedDFUVersion(String)
    /// A settings page version other than 1 and 2.
    case unknownSettingsVersion(UInt32)
    /// A backup page address for a page without a backup.
    case backupAddressWithoutBackup
    /// Boot validation in a version 1 settings page.
    case bootValidationNeedsSettingsVersion2
    /// A SoftDevice given as a `.bin` for a settings page (nrfutil reads it as HEX).
    case softDeviceNotHex

    package var description: String {
        func list(_ options: [PackageOption], _ conjunction: String) -> String {
            guard let last = options.last else { return "" }
            let head = options.dropLast().map(\.description).joined(separator: ", ")
            return head.isEmpty ? last.description : "\(head) \(conjunction) \(last)"
        }
        switch self {
        case .noImage:
            return "no image given: set \(list([.application, .bootloader, .softdevice], "or"))"
        case .bootloaderWithApplicationNeedsSoftDevice:
            return "invalid combination: a bootloader with an application needs a SoftDevice too; use two packages "
                + "instead"
        case .invalidNumber(let option, let fault):
            return "\(option): \(fault)"
        case .givenMoreThanOnce(let option):
            return "\(option): give one comma-separated list, such as 0xXXXX,0xYYYY, not several"
        case .givenWithoutImage(let option, let image):
            return "\(option) given with no \(image) image"
        case .missing(let options, let images):
            return "\(list(options, "or")) is required" + (images.isEmpty ? "" : " with \(list(images, "and"))")
        case .needs(let option, let other):
            return "\(option) needs \(other)"
        case .externalApplicationWithOtherImages:
            return "\(PackageOption.externalApp) is only possible for a package with just an application"
        case .signatureNeedsKey:
            return "VALIDATE_ECDSA_P256_SHA256 boot validation needs a \(PackageOption.keyFile) to sign the image"
        case .keyRequiredForSignatureValidation:
            return "\(PackageOption.keyFile) is required with VALIDATE_ECDSA_P256_SHA256 boot validation"
        case .unsupportedDFUVersion(let text):
            return "\(PackageOption.dfuVersion): \(text) is not supported; use 0.5 or 0.6 (adafruit-nrfutil "
                + "0.5.3.post16 fails on 0.7 and 0.8)"
        case .unknownSettingsVersion(let version):
            return "\(PackageOption.settingsVersion): \(version) is unknown; use 1 (SDK 12-15.2) or 2 (SDK 15.3+)"
        case .backupAddressWithoutBackup:
            return "\(PackageOption.backupAddress) cannot be given without a backup page (\(PackageOption.noBackup))"
        case .bootValidationNeedsSettingsVersion2:
            return "\(PackageOption.settingsVersion) 1 does not support boot validation"
        case .softDeviceNotHex:
            return "\(PackageOption.softdevice) must be an Intel HEX file (nrfutil reads it as HEX)"
        }
    }
}

/// Why a number given as nrfutil takes it (``NordicInteger``) was refused; the option it was given as is named by
/// whoever asked.
package enum NumberFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a number in nrfutil's notation.
    case notAnInteger(String)
    /// A number past the field's largest value.
    case tooLarge(String, limit: UInt64)
    /// A version string that is not three parts.
    case notAVersionString(String)
    /// A version string with a part that is not a decimal number.
    case versionNotDecimal(String)
    /// A version string whose value does not fit 32 bits.
    case versionTooLarge(String, total: UInt64)

    package var description: String {
        switch self {
        case .notAnInteger(let text):
            "\(text) is not a valid integer (0x for hexadecimal, a leading 0 for octal)"
        case .tooLarge(let text, let limit):
            "\(text) is larger than the field holds (at most 0x\(String(limit, radix: 16, uppercase: true)))"
        case .notAVersionString(let text):
            "\(text) must be on the format x.y.z"
        case .versionNotDecimal(let text):
            "\(text) must be on the format x.y.z (decimal numbers)"
        case .versionTooLarge(let text, let total):
            "\(text) gives \(total), more than 32 bits hold"
        }
    }
}

/// A warning nrfutil prints for a package's options.
package enum PackageWarning: Sendable, Equatable, CustomStringConvertible {
    /// Debug mode: the package takes only a debug bootloader.
    case debugMode
    /// No signing key: the package is unsigned.
    case unsigned
    /// Both version options: the string wins.
    case bothApplicationVersions

    package var description: String {
        switch self {
        case .debugMode: "warning: debug mode: the bootloader must be a debug build to accept this package"
        case .unsigned:
            "warning: no \(PackageOption.keyFile): the package is unsigned, for open bootloaders only"
        case .bothApplicationVersions:
            "warning: both \(PackageOption.applicationVersionString) and \(PackageOption.applicationVersion) given; "
                + "only the string is used"
        }
    }
}

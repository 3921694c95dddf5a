import PackageBuilder

/// An option of ``FirmwarePackage/SecureOptions``, ``FirmwarePackage/LegacyOptions`` or
/// ``BootloaderSettingsPage/Options`` (and the signing key given with them), as a ``PackagingProblem`` names it.
public enum PackagingOption: Sendable, Hashable, CaseIterable {
    /// The application image.
    case application
    /// The application version as a number.
    case applicationVersion
    /// The application version as `x.y.z`.
    case applicationVersionString
    /// The bootloader image.
    case bootloader
    /// The bootloader version.
    case bootloaderVersion
    /// The SoftDevice image.
    case softDevice
    /// The hardware version.
    case hardwareVersion
    /// The SoftDevice firmware ids the images run on.
    case softDeviceRequirements
    /// The new SoftDevice's firmware ids.
    case softDeviceIDs
    /// Whether the application is external.
    case isExternalApplication
    /// The key that signs the init packets or the boot validation.
    case signingKey
    /// A legacy init packet's device type.
    case deviceType
    /// A legacy init packet's device revision.
    case deviceRevision
    /// The legacy init packet version.
    case dfuVersion
    /// The settings page format.
    case settingsVersion
    /// The backup page's address.
    case backupAddress
    /// Whether the settings page has a backup page.
    case includesBackup
    /// How the bootloader checks the application.
    case applicationBootValidation
    /// How the bootloader checks the SoftDevice.
    case softDeviceBootValidation

    init(_ option: PackageOption) {
        switch option {
        case .application: self = .application
        case .applicationVersion: self = .applicationVersion
        case .applicationVersionString: self = .applicationVersionString
        case .bootloader: self = .bootloader
        case .bootloaderVersion: self = .bootloaderVersion
        case .softdevice: self = .softDevice
        case .hwVersion: self = .hardwareVersion
        case .sdReq: self = .softDeviceRequirements
        case .sdId: self = .softDeviceIDs
        case .externalApp: self = .isExternalApplication
        case .keyFile: self = .signingKey
        case .devType: self = .deviceType
        case .devRevision: self = .deviceRevision
        case .dfuVersion: self = .dfuVersion
        case .settingsVersion: self = .settingsVersion
        case .backupAddress: self = .backupAddress
        case .noBackup: self = .includesBackup
        case .appBootValidation: self = .applicationBootValidation
        case .sdBootValidation: self = .softDeviceBootValidation
        }
    }
}

/// An option value or combination that package or settings generation refuses (``ExitStatus/usage``), typed so
/// that a front end which names the options its own way (a command line's flags) can say it in its words.
///
/// ``description`` says it in this library's words, as ``UpdateError/message`` does.
public struct PackagingProblem: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// Neither an application, a bootloader nor a SoftDevice.
        case noImage
        /// A bootloader and an application without a SoftDevice (nrfutil wants two packages).
        case bootloaderWithApplicationNeedsSoftDevice
        /// A number that is not one in nrfutil's notation, or does not fit its field; `reason` says which.
        case invalidNumber(PackagingOption, reason: String)
        /// A list given more than once (nrfutil takes one comma-separated list).
        case givenMoreThanOnce(PackagingOption)
        /// A version given for an image that is not there.
        case givenWithoutImage(PackagingOption, image: PackagingOption)
        /// None of the options given (any one would do), although required: always, or with the `with` images.
        case missing([PackagingOption], with: [PackagingOption])
        /// The first option needs the second.
        case needs(PackagingOption, PackagingOption)
        /// An external application with a SoftDevice or a bootloader.
        case externalApplicationWithOtherImages
        /// ECDSA boot validation of a package's image without a signing key.
        case signatureNeedsKey
        /// ECDSA boot validation in a settings page without a signing key.
        case keyRequiredForSignatureValidation
        /// A legacy init packet version other than 0.5 and 0.6.
        case unsupportedDFUVersion(String)
        /// A settings page format other than 1 and 2.
        case unknownSettingsVersion(UInt32)
        /// A backup page address for a page without a backup page.
        case backupAddressWithoutBackup
        /// Boot validation in a format 1 settings page.
        case bootValidationNeedsSettingsVersion2
        /// A SoftDevice for a settings page that is not Intel HEX.
        case softDeviceNotHex
    }

    /// What is wrong.
    public let kind: Kind
    /// The message in this library's words, such as `hardwareVersion is required`.
    public let description: String

    init(_ problem: PackageOptionProblem) {
        description = problem.description
        func options(_ list: [PackageOption]) -> [PackagingOption] { list.map(PackagingOption.init) }
        switch problem {
        case .noImage: kind = .noImage
        case .bootloaderWithApplicationNeedsSoftDevice: kind = .bootloaderWithApplicationNeedsSoftDevice
        case .invalidNumber(let option, let fault):
            kind = .invalidNumber(PackagingOption(option), reason: fault.description)
        case .givenMoreThanOnce(let option): kind = .givenMoreThanOnce(PackagingOption(option))
        case .givenWithoutImage(let option, let image):
            kind = .givenWithoutImage(PackagingOption(option), image: PackagingOption(image))
        case .missing(let missing, let images): kind = .missing(options(missing), with: options(images))
        case .needs(let option, let other): kind = .needs(PackagingOption(option), PackagingOption(other))
        case .externalApplicationWithOtherImages: kind = .externalApplicationWithOtherImages
        case .signatureNeedsKey: kind = .signatureNeedsKey
        case .keyRequiredForSignatureValidation: kind = .keyRequiredForSignatureValidation
        case .unsupportedDFUVersion(let text): kind = .unsupportedDFUVersion(text)
        case .unknownSettingsVersion(let version): kind = .unknownSettingsVersion(version)
        case .backupAddressWithoutBackup: kind = .backupAddressWithoutBackup
        case .bootValidationNeedsSettingsVersion2: kind = .bootValidationNeedsSettingsVersion2
        case .softDeviceNotHex: kind = .softDeviceNotHex
        }
    }
}

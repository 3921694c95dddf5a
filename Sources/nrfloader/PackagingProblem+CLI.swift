import NRFLoaderKit

extension PackagingProblem {
    /// The problem as `package` and `settings generate` say it, in nrfutil's words, with each option named by
    /// `flag`.
    ///
    /// - Parameter flag: The command's table of option names.
    /// - Returns: The message.
    func commandLineMessage(naming flag: (PackagingOption) -> String) -> String {
        func list(_ options: [PackagingOption], _ conjunction: String) -> String {
            options.map(flag).joined(separator: " \(conjunction) ")
        }
        switch kind {
        case .noImage:
            return "no image given: use \(flag(.application)), \(flag(.bootloader)) or \(flag(.softDevice))"
        case .bootloaderWithApplicationNeedsSoftDevice:
            return "invalid combination: \(flag(.bootloader)) with \(flag(.application)) needs \(flag(.softDevice)) "
                + "too; use two packages instead"
        case .invalidNumber(let option, let reason):
            return "\(flag(option)): \(reason)"
        case .givenMoreThanOnce(let option):
            let what = option == .softDeviceIDs ? "SoftDevice ids" : "SoftDevice requirements"
            return "\(flag(option)): give the \(what) once, as a comma-separated list: \(flag(option)) 0xXXXX,0xYYYY"
        case .givenWithoutImage(let option, let image):
            return "\(flag(option)) given with no \(flag(image)) image"
        case .missing(let options, let images):
            return "\(list(options, "or")) is required" + (images.isEmpty ? "" : " with \(list(images, "and"))")
        case .needs(let option, let other):
            return "\(flag(option)) needs \(flag(other))"
        case .externalApplicationWithOtherImages:
            return "\(flag(.isExternalApplication)) is only possible for a package with just an application"
        case .signatureNeedsKey:
            return "VALIDATE_ECDSA_P256_SHA256 boot validation needs \(flag(.signingKey)) to sign the image"
        case .keyRequiredForSignatureValidation:
            return "\(flag(.signingKey)) is required with VALIDATE_ECDSA_P256_SHA256 boot validation"
        case .unsupportedDFUVersion(let text):
            return "\(flag(.dfuVersion)): \(text) is not supported; use 0.5 or 0.6 (adafruit-nrfutil 0.5.3.post16 "
                + "fails on 0.7 and 0.8)"
        case .unknownSettingsVersion(let version):
            return "\(flag(.settingsVersion)): \(version) is unknown; use 1 (SDK 12-15.2) or 2 (SDK 15.3+)"
        case .backupAddressWithoutBackup:
            return "\(flag(.backupAddress)) cannot be given with \(flag(.includesBackup))"
        case .bootValidationNeedsSettingsVersion2:
            return "\(flag(.settingsVersion)) 1 does not support boot validation"
        case .softDeviceNotHex:
            return "\(flag(.softDevice)) must be an Intel HEX file (nrfutil reads it as HEX)"
        }
    }
}

extension UpdateError {
    /// The error with a packaging problem said in a command's words (`flag` names the options); any other error as
    /// it is.
    ///
    /// - Parameter flag: The command's table of option names.
    /// - Returns: The error to report.
    func namingPackagingOptions(_ flag: (PackagingOption) -> String) -> UpdateError {
        guard let problem = packagingProblem else { return self }
        return UpdateError(problem.commandLineMessage(naming: flag), exitStatus: exitStatus)
    }
}

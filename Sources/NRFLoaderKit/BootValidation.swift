package import DFUPackage

/// How a Secure DFU bootloader checks an image before it boots it (nrfutil's `--app-boot-validation` and
/// `--sd-boot-validation`), named as nrfutil names them.
public enum BootValidation: String, Sendable, CaseIterable {
    /// `NO_VALIDATION`: none.
    case none = "NO_VALIDATION"
    /// `VALIDATE_GENERATED_CRC`: a CRC-32 of the image.
    case generatedCRC = "VALIDATE_GENERATED_CRC"
    /// `VALIDATE_GENERATED_SHA256`: a SHA-256 of the image.
    case generatedSHA256 = "VALIDATE_GENERATED_SHA256"
    /// `VALIDATE_ECDSA_P256_SHA256`: an ECDSA P-256 signature over the image's SHA-256 (needs a ``SigningKey``).
    case ecdsaP256SHA256 = "VALIDATE_ECDSA_P256_SHA256"

    package var validationType: ValidationType {
        switch self {
        case .none: .noValidation
        case .generatedCRC: .validateGeneratedCRC
        case .generatedSHA256: .validateSHA256
        case .ecdsaP256SHA256: .validateECDSAP256SHA256
        }
    }
}

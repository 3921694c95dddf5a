/// `dfu.OpCode` of `dfu-cc.proto`: what a ``Command`` asks for.
package enum OpCode: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `RESET` (0).
    case reset = 0
    /// `INIT` (1): the command carries an ``InitCommand``. nrfutil always writes this.
    case initialize = 1

    /// The name used in `dfu-cc.proto`.
    package var description: String {
        switch self {
        case .reset: "RESET"
        case .initialize: "INIT"
        }
    }
}

/// `dfu.FwType` of `dfu-cc.proto`: what kind of image an ``InitCommand`` describes.
package enum FirmwareType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `APPLICATION` (0).
    case application = 0
    /// `SOFTDEVICE` (1).
    case softdevice = 1
    /// `BOOTLOADER` (2).
    case bootloader = 2
    /// `SOFTDEVICE_BOOTLOADER` (3): one image, SoftDevice followed by bootloader.
    case softdeviceBootloader = 3
    /// `EXTERNAL_APPLICATION` (4): added with `boot_validation` in nrfutil 5.0; SDK 15.3+ bootloaders.
    case externalApplication = 4

    /// The name used in `dfu-cc.proto`.
    package var description: String {
        switch self {
        case .application: "APPLICATION"
        case .softdevice: "SOFTDEVICE"
        case .bootloader: "BOOTLOADER"
        case .softdeviceBootloader: "SOFTDEVICE_BOOTLOADER"
        case .externalApplication: "EXTERNAL_APPLICATION"
        }
    }
}

/// `dfu.HashType` of `dfu-cc.proto`; bootloaders accept only ``sha256``.
package enum HashType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `NO_HASH` (0).
    case noHash = 0
    /// `CRC` (1).
    case crc = 1
    /// `SHA128` (2).
    case sha128 = 2
    /// `SHA256` (3): the only type nrfutil writes and SDK bootloaders accept.
    case sha256 = 3
    /// `SHA512` (4).
    case sha512 = 4

    /// The name used in `dfu-cc.proto`.
    package var description: String {
        switch self {
        case .noHash: "NO_HASH"
        case .crc: "CRC"
        case .sha128: "SHA128"
        case .sha256: "SHA256"
        case .sha512: "SHA512"
        }
    }
}

/// `dfu.ValidationType` of `dfu-cc.proto` (nrfutil 5.0+, SDK 15.3+): how the bootloader checks an image at boot.
package enum ValidationType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `NO_VALIDATION` (0).
    case noValidation = 0
    /// `VALIDATE_GENERATED_CRC` (1): nrfutil's default; the bytes are empty.
    case validateGeneratedCRC = 1
    /// `VALIDATE_SHA256` (2): the bytes are empty.
    case validateSHA256 = 2
    /// `VALIDATE_ECDSA_P256_SHA256` (3): the bytes are a signature over the image, r and s each little-endian.
    case validateECDSAP256SHA256 = 3

    /// The name used in `dfu-cc.proto`.
    package var description: String {
        switch self {
        case .noValidation: "NO_VALIDATION"
        case .validateGeneratedCRC: "VALIDATE_GENERATED_CRC"
        case .validateSHA256: "VALIDATE_SHA256"
        case .validateECDSAP256SHA256: "VALIDATE_ECDSA_P256_SHA256"
        }
    }
}

/// `dfu.SignatureType` of `dfu-cc.proto`.
package enum SignatureType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `ECDSA_P256_SHA256` (0): the only type nrfutil writes and SDK bootloaders verify.
    case ecdsaP256SHA256 = 0
    /// `ED25519` (1): defined in the schema, never implemented by Nordic's tools.
    case ed25519 = 1

    /// The name used in `dfu-cc.proto`.
    package var description: String {
        switch self {
        case .ecdsaP256SHA256: "ECDSA_P256_SHA256"
        case .ed25519: "ED25519"
        }
    }
}

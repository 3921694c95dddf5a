internal import Crypto
package import DFUPackage

/// Checks init packet signatures against a P-256 public key, as a Secure DFU bootloader does before it accepts
/// an update.
///
/// The key comes from a PEM file (`nrfutil keys display --key pk --format pem`, `openssl ec -pubout`) or in the
/// form compiled into bootloaders: the 64-byte `pk` array of `dfu_public_key.c`, X then Y, **each 32 bytes
/// little-endian** (nrfutil `signing.py` `get_vk_code`; dfu-protocols.md §3.3). Signatures are checked over the
/// exact bytes the package stores (`DFUPackage.SignedMessage`), never over a re-encoding.
package struct InitPacketVerifier: Sendable {
    private let key: P256.Signing.PublicKey

    init(key: P256.Signing.PublicKey) {
        self.key = key
    }

    /// Loads a public key from PEM text (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo).
    ///
    /// - Parameters:
    ///   - pem: The key file's text.
    ///   - file: The key file's display name, for errors.
    /// - Throws: `malformedKeyFile`, `unsupportedPEMBlock`, `wrongCurve`, `wrongKeyAlgorithm`, `expectedPublicKey`,
    ///   `malformedKey`.
    package init(pem: String, file: String) throws(DFUSigningError) {
        key = try PEMKeyFile(text: pem, file: file).publicKey(file: file)
    }

    /// Loads a public key in Nordic's C-array form: X then Y, each 32 bytes little-endian.
    ///
    /// - Parameters:
    ///   - nordicPublicKey: The 64 bytes of `pk[]` in `dfu_public_key.c`, in array order.
    ///   - file: The key's display name, for errors.
    /// - Throws: `wrongRawKeyLength`, or `malformedKey` when the point is not on P-256.
    package init(nordicPublicKey: [UInt8], file: String) throws(DFUSigningError) {
        guard nordicPublicKey.count == 64 else {
            throw .wrongRawKeyLength(file: file, length: nordicPublicKey.count)
        }
        do {
            key = try P256.Signing.PublicKey(
                rawRepresentation: SignedMessage.swappingHalvesByteOrder(nordicPublicKey))
        } catch {
            throw .malformedKey(file: file)
        }
    }

    /// Loads a public key file in whichever form it has: PEM text, 64 raw bytes in Nordic's order, or those
    /// 64 bytes as 128 hex digits (spaces and line breaks ignored, as `nrfutil keys display --format hex` prints
    /// them after its heading is removed).
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - file: The file's display name, for errors.
    /// - Throws: As ``init(pem:file:)`` and ``init(nordicPublicKey:file:)``; `malformedKeyFile` for anything else.
    package init(keyFile contents: [UInt8], file: String) throws(DFUSigningError) {
        let text = String(decoding: contents, as: UTF8.self)
        if text.contains("-----BEGIN ") {
            try self.init(pem: text, file: file)
        } else if let raw = Self.hexBytes(text) {
            try self.init(nordicPublicKey: raw, file: file)
        } else if contents.count == 64 {
            try self.init(nordicPublicKey: contents, file: file)
        } else {
            throw .malformedKeyFile(file: file)
        }
    }

    /// The key in Nordic's C-array order (X then Y, each little-endian), as `dfu_public_key.c` holds it.
    package var nordicPublicKey: [UInt8] { SignedMessage.swappingHalvesByteOrder(Array(key.rawRepresentation)) }

    /// The key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package var pemRepresentation: String { key.pemRepresentation }

    /// Checks a signed message: ECDSA P-256 over SHA-256 of ``DFUPackage/SignedMessage/message``.
    ///
    /// - Parameters:
    ///   - signedMessage: The message and its signature in standard (big-endian r‖s) order, or nil when unsigned.
    ///   - file: The init packet's display name, for errors.
    /// - Returns: `unsigned` for nil, else `valid` or `invalid`.
    /// - Throws: `unsupportedSignatureType` for ED25519, `wrongSignatureLength` unless 64 bytes.
    package func check(_ signedMessage: SignedMessage?, file: String) throws(DFUSigningError) -> SignatureCheck {
        guard let signedMessage else { return .unsigned }
        guard signedMessage.signatureType == .ecdsaP256SHA256 else {
            throw .unsupportedSignatureType(file: file, type: signedMessage.signatureType)
        }
        guard signedMessage.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signedMessage.signature)
        else {
            throw .wrongSignatureLength(file: file, length: signedMessage.signature.count)
        }
        return key.isValidSignature(signature, for: signedMessage.message) ? .valid : .invalid
    }

    /// Checks the init packet signature of one part of a package.
    ///
    /// - Parameters:
    ///   - part: The part; its ``DFUPackage/DFUPackage/Part/signedMessage`` holds the bytes cut from its `.dat`.
    ///   - packageName: The package's display name; errors name `packageName/datFile`.
    /// - Returns: `valid`, `invalid` or `unsigned`.
    /// - Throws: As ``check(_:file:)``.
    package func check(_ part: DFUPackage.Part, packageName: String) throws(DFUSigningError) -> SignatureCheck {
        try check(part.signedMessage, file: "\(packageName)/\(part.datFile)")
    }

    /// Decodes 128 hex digits (whitespace ignored, optional `0x` prefix) to 64 bytes; nil for anything else.
    private static func hexBytes(_ text: String) -> [UInt8]? {
        var digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        if digits.count == 130, digits[0] == "0", digits[1] == "x" || digits[1] == "X" { digits.removeFirst(2) }
        guard digits.count == 128 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": UInt8(scalar.value - 48)
        case "a"..."f": UInt8(scalar.value - 87)
        case "A"..."F": UInt8(scalar.value - 55)
        default: nil
        }
    }
}

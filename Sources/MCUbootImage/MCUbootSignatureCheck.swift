import Checksums
import Crypto
import FoundationEssentials

/// A public key to check an image's signature with: the keys `imgtool keygen -t ecdsa-p256` and `-t ed25519` write
/// (PKCS#8 private keys), or their public parts (`imgtool getpub -e pem`).
package struct MCUbootVerificationKey: Sendable {
    /// The kind of key.
    package enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// ECDSA P-256: signature TLV 0x22 (`ECDSASIG`), a DER signature of the SHA-256 of the hashed bytes.
        case ecdsaP256
        /// ed25519: signature TLV 0x24 (`ED25519`) over the 32-byte SHA-256 digest (imgtool 2.x "sign the
        /// digest").
        case ed25519

        package var description: String { self == .ecdsaP256 ? "ECDSA P-256" : "ed25519" }

        /// The signature TLV's type.
        var signatureTLV: UInt16 { self == .ecdsaP256 ? MCUbootTLV.ecdsaSignature : MCUbootTLV.ed25519Signature }
    }

    /// The kind.
    package let kind: Kind
    /// The key file, for messages.
    package let file: String
    private let ecdsa: P256.Signing.PublicKey?
    private let edwards: Curve25519.Signing.PublicKey?

    /// The DER SubjectPublicKeyInfo imgtool hashes into the KEYHASH TLV (`get_public_bytes`).
    package let subjectPublicKeyInfo: [UInt8]

    /// Reads a PEM key file.
    ///
    /// - Parameters:
    ///   - pem: The file's text.
    ///   - file: Its name, for messages.
    /// - Throws: ``MCUbootImageError/unusableKey(file:problem:)``.
    package init(pem: String, file: String) throws(MCUbootImageError) {
        self.file = file
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            (kind, ecdsa, edwards) = (.ecdsaP256, key.publicKey, nil)
            subjectPublicKeyInfo = Array(key.publicKey.derRepresentation)
            return
        }
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            (kind, ecdsa, edwards) = (.ecdsaP256, key, nil)
            subjectPublicKeyInfo = Array(key.derRepresentation)
            return
        }
        guard let der = Self.derOfPEM(pem) else {
            throw .unusableKey(file: file, problem: "no PEM key block (imgtool keygen writes one)")
        }
        // RFC 8410: an ed25519 PKCS#8 private key and SubjectPublicKeyInfo have fixed prefixes.
        let privatePrefix: [UInt8] = [
            0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
        ]
        let publicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
        let key: Curve25519.Signing.PublicKey
        do {
            if der.count == 48, Array(der.prefix(16)) == privatePrefix {
                key = try Curve25519.Signing.PrivateKey(rawRepresentation: der.suffix(32)).publicKey
            } else if der.count == 44, Array(der.prefix(12)) == publicPrefix {
                key = try Curve25519.Signing.PublicKey(rawRepresentation: der.suffix(32))
            } else {
                throw MCUbootImageError.unusableKey(
                    file: file, problem: "holds neither an ECDSA P-256 nor an ed25519 key (RSA is not supported)")
            }
        } catch {
            throw .unusableKey(file: file, problem: "holds neither an ECDSA P-256 nor an ed25519 key")
        }
        (kind, ecdsa, edwards) = (.ed25519, nil, key)
        subjectPublicKeyInfo = publicPrefix + Array(key.rawRepresentation)
    }

    /// Checks `image`'s signature (and its KEYHASH or PUBKEY TLV) against this key.
    ///
    /// - Parameter image: The image; its SHA-256 TLV must already hold (``MCUbootImage/verifiedHash()``).
    /// - Throws: ``MCUbootImageError``: `unsigned`, `keyHashMismatch` or `signatureInvalid`.
    package func verify(_ image: MCUbootImage) throws(MCUbootImageError) {
        guard let signature = image.tlv(kind.signatureTLV) else {
            throw .unsigned(file: image.file, keyType: kind.description)
        }
        if let keyHash = image.tlv(MCUbootTLV.keyHash), keyHash.value != SHA256.hash(subjectPublicKeyInfo) {
            throw .keyHashMismatch(file: image.file, keyFile: file)
        }
        if let publicKey = image.tlv(MCUbootTLV.publicKey), publicKey.value != subjectPublicKeyInfo {
            throw .keyHashMismatch(file: image.file, keyFile: file)
        }
        let isValid: Bool
        switch kind {
        case .ecdsaP256:
            if let ecdsa, let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature.value) {
                isValid = ecdsa.isValidSignature(parsed, for: Data(image.hashedBytes))
            } else {
                isValid = false
            }
        case .ed25519:
            let digest = SHA256.hash(image.hashedBytes)
            isValid = edwards?.isValidSignature(signature.value, for: digest) ?? false
        }
        guard isValid else { throw .signatureInvalid(file: image.file, keyFile: file, tlv: signature.typeName) }
    }

    /// The DER bytes of the first PEM block.
    private static func derOfPEM(_ pem: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map { String($0.filter { !$0.isWhitespace }) }
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN") }),
            let end = lines[begin...].firstIndex(where: { $0.hasPrefix("-----END") })
        else { return nil }
        return Data(base64Encoded: lines[(begin + 1)..<end].joined()).map { Array($0) }
    }
}

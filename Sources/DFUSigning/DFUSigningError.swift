package import DFUPackage

/// Everything that can be wrong with a key file or with a signature this module is asked to check.
///
/// Every case is caused by input (a key file, a package), so the CLI maps the whole enum to "bad input data".
/// `file` is the display name the caller gave: the key's path, or `package.zip/entry.dat` for a signature.
package enum DFUSigningError: Error, Sendable, Equatable {
    /// The key file is neither PEM (no `-----BEGIN …-----` / `-----END …-----` block, or bad base64 inside it)
    /// nor one of the raw public key forms.
    case malformedKeyFile(file: String)
    /// The PEM block holds something other than a key this tool reads, such as a certificate or an encrypted key.
    case unsupportedPEMBlock(file: String, label: String)
    /// The key is P-256 by its labels but its DER contents do not parse, or the point is not on the curve.
    case malformedKey(file: String)
    /// The key is an elliptic-curve key on a curve other than P-256 (Nordic's bootloaders verify P-256 only).
    case wrongCurve(file: String, curve: String)
    /// The key is not an elliptic-curve key at all, e.g. RSA or Ed25519.
    case wrongKeyAlgorithm(file: String, algorithm: String)
    /// A private key was given where a public key is expected.
    case expectedPublicKey(file: String)
    /// A public key was given where a private key is expected.
    case expectedPrivateKey(file: String)
    /// A raw public key (Nordic's `pk[64]`, X‖Y each little-endian) is not 64 bytes.
    case wrongRawKeyLength(file: String, length: Int)
    /// An init packet's signature is not the 64 bytes of an ECDSA P-256 r‖s.
    case wrongSignatureLength(file: String, length: Int)
    /// An init packet is signed with an algorithm other than ECDSA P-256 with SHA-256.
    case unsupportedSignatureType(file: String, type: SignatureType)
}

extension DFUSigningError: CustomStringConvertible {
    /// One line naming the problem and where it is, lowercase first, without an `Error:` prefix.
    package var description: String {
        switch self {
        case .malformedKeyFile(let file):
            "\(file): not a PEM key file, nor a 64-byte raw public key"
        case .unsupportedPEMBlock(let file, let label):
            "\(file): PEM block '\(label)' is not a key this tool reads; need an unencrypted P-256 key"
        case .malformedKey(let file):
            "\(file): key data is malformed"
        case .wrongCurve(let file, let curve):
            "\(file): key is on curve \(curve); Nordic bootloaders verify P-256 (prime256v1) only"
        case .wrongKeyAlgorithm(let file, let algorithm):
            "\(file): key is \(algorithm); Nordic bootloaders verify ECDSA P-256 only"
        case .expectedPublicKey(let file):
            "\(file): holds a private key where a public key is expected"
        case .expectedPrivateKey(let file):
            "\(file): holds a public key where a private key is expected"
        case .wrongRawKeyLength(let file, let length):
            "\(file): raw public key is \(length) bytes, expected 64 (X then Y, each little-endian)"
        case .wrongSignatureLength(let file, let length):
            "\(file): init packet signature is \(length) bytes, expected 64"
        case .unsupportedSignatureType(let file, let type):
            "\(file): init packet signature type is \(type); only ECDSA_P256_SHA256 is supported"
        }
    }
}

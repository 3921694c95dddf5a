internal import Crypto
import DFUPackage

/// Signs Secure DFU init packets with a P-256 private key, as nrfutil `pkg generate --key-file` does.
///
/// Pass it to `DFUPackage.Part.init(secure:options:signer:source:)`. The signature is ECDSA P-256
/// over SHA-256 of the message (for init packets, the serialized `InitCommand`), returned in Nordic's stored
/// order: r then s, **each 32 bytes little-endian** (nrfutil `signing.py`: `signature[31::-1] + signature[63:31:-1]`;
/// dfu-protocols.md §3.3). ECDSA nonces are random, so two signatures of the same bytes differ; both verify.
package struct InitPacketSigner: InitPacketSigning, Sendable {
    private let key: P256.Signing.PrivateKey

    /// Loads a private key from PEM text.
    ///
    /// Reads SEC1 (`-----BEGIN EC PRIVATE KEY-----`, what `nrfutil keys generate` and
    /// `openssl ecparam -genkey` write; a leading `EC PARAMETERS` block is skipped) and PKCS#8
    /// (`-----BEGIN PRIVATE KEY-----`, what `openssl genpkey` writes). Encrypted keys are not read.
    ///
    /// - Parameters:
    ///   - pem: The key file's text.
    ///   - file: The key file's display name, for errors.
    /// - Throws: `malformedKeyFile`, `unsupportedPEMBlock`, `wrongCurve`, `wrongKeyAlgorithm`, `expectedPrivateKey`,
    ///   `malformedKey`.
    package init(pem: String, file: String) throws(DFUSigningError) {
        key = try PEMKeyFile(text: pem, file: file).privateKey(file: file)
    }

    /// Creates a signer with a new random key, for tests and key generation.
    package init() {
        key = P256.Signing.PrivateKey()
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), which `init(pem:file:)` reads back.
    package var pemRepresentation: String { key.pemRepresentation }

    /// A verifier for this key's public half.
    package var verifier: InitPacketVerifier { InitPacketVerifier(key: key.publicKey) }

    /// Signs `message` with ECDSA P-256 over its SHA-256.
    ///
    /// - Parameter message: The bytes to sign, e.g. `InitCommand.encoded()`.
    /// - Returns: r‖s, 64 bytes, each half little-endian (Nordic's stored order).
    package func nordicSignature(over message: [UInt8]) -> [UInt8] {
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try key.signature(for: message)
        } catch {
            // BoringSSL fails to sign with a valid key only when it cannot allocate or read randomness.
            preconditionFailure("swift-crypto could not sign with a valid P-256 key: \(error)")
        }
        return SignedMessage.swappingHalvesByteOrder(Array(signature.rawRepresentation))
    }
}

/// A message and its signature in the form a standard signature verifier takes.
///
/// Nordic's byte-order rules, which this type undoes:
/// - Secure DFU (`dfu-cc.proto`): the signed message is the serialized `InitCommand` only (nrfutil
///   `package.py` signs `init_packet.get_init_command_bytes()`), hashed with SHA-256 for ECDSA P-256. The stored
///   signature is r‖s with **each 32-byte half byte-reversed** (nrfutil `signing.py`). The bootloader's public
///   key `pk[64]` in `dfu_public_key.c` is X‖Y stored the same way. The firmware hash inside the message is
///   SHA-256 of the image fully reversed (see ``InitCommand/Hash``).
/// - Legacy DFU 0.8 (nrfutil 0.5.x `--dfu-ver 0.8`): the message is the init packet up to the signature, and r‖s
///   is stored big-endian, no reversal.
///
/// ``signature`` is always the usual big-endian r‖s (what, for example, swift-crypto's
/// `P256.Signing.ECDSASignature(rawRepresentation:)` expects). Verification itself is another module's job.
package struct SignedMessage: Sendable, Equatable {
    /// The exact bytes that were signed.
    package let message: [UInt8]
    /// The algorithm.
    package let signatureType: SignatureType
    /// The signature in standard order.
    ///
    /// For ECDSA P-256: r (32 bytes) then s (32 bytes), each most significant byte first. ED25519 bytes, which no
    /// Nordic tool writes, are passed through as stored.
    package let signature: [UInt8]

    /// Creates a signed message from values already in standard order.
    ///
    /// - Parameters:
    ///   - message: The signed bytes.
    ///   - signatureType: The algorithm.
    ///   - signature: The signature in standard (big-endian r‖s) order.
    package init(message: [UInt8], signatureType: SignatureType, signature: [UInt8]) {
        self.message = message
        self.signatureType = signatureType
        self.signature = signature
    }

    /// Reverses each half of `bytes` separately: turns Nordic's little-endian r‖s or X‖Y into big-endian and back.
    ///
    /// - Parameter bytes: An even number of bytes, typically 64.
    /// - Returns: The first half reversed followed by the second half reversed.
    package static func swappingHalvesByteOrder(_ bytes: [UInt8]) -> [UInt8] {
        let half = bytes.count / 2
        return bytes[..<half].reversed() + bytes[half...].reversed()
    }
}

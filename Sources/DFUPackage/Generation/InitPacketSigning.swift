/// Something that signs Secure DFU messages with ECDSA P-256 and SHA-256, as nrfutil `signing.py` does.
///
/// This module has no cryptography; `DFUSigning.InitPacketSigner` conforms with swift-crypto. Generation calls
/// it for the serialized ``InitCommand`` (the bytes a bootloader verifies) and, when `boot_validation` asks for
/// `VALIDATE_ECDSA_P256_SHA256`, for the firmware image.
///
/// A conforming type fails only when its crypto library does (out of memory), which is not an input error, so the
/// requirement does not throw.
package protocol InitPacketSigning: Sendable {
    /// Signs `message`: ECDSA P-256 over SHA-256 of `message`.
    ///
    /// - Parameter message: The bytes to sign.
    /// - Returns: 64 bytes in Nordic's stored order: r (32 bytes) then s (32 bytes), **each little-endian**
    ///   (`signing.py` returns `signature[31::-1] + signature[63:31:-1]`). ``SignedMessage`` undoes that order.
    func nordicSignature(over message: [UInt8]) -> [UInt8]
}

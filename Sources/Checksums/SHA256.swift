internal import SystemCrypto

/// An incremental SHA-256 digest (FIPS 180-4), computed by the system's OpenSSL `libcrypto`.
///
/// Firmware images are hashed for the user-facing summary, the catalog's integrity check and Secure DFU init
/// packets. OpenSSL uses the CPU's SHA extensions where present: a 16 MiB image hashes in about 10 ms instead of
/// about 70 ms with portable code, which matters to `convert`'s speed. Feed bytes with ``update(_:)`` in any
/// number of pieces, then call ``finalize()`` once.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// Creates an empty digest.
    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            preconditionFailure("OpenSSL could not start a SHA-256 digest (out of memory)")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Returns the SHA-256 of `bytes` in one call.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: The 32-byte digest.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = SHA256()
        digest.update(Array(bytes))
        return digest.finalize()
    }

    /// Adds `bytes` to the message.
    ///
    /// - Parameter bytes: The next piece of the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { update($0) }
    }

    /// Adds the bytes in `buffer` to the message.
    ///
    /// - Parameter buffer: The next piece of the message.
    public mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, buffer.count) == 1 else {
            preconditionFailure("OpenSSL rejected a SHA-256 update")
        }
    }

    /// Pads the message and returns its digest.
    ///
    /// - Returns: The 32-byte digest, most significant byte first.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(status == 1 && length == 32, "OpenSSL could not finish a SHA-256 digest")
        return digest
    }
}

internal import Crypto

/// An incremental SHA-256 digest (FIPS 180-4), computed by swift-crypto (BoringSSL, linked into the executable).
///
/// Firmware images are hashed for the user-facing summary, the catalog's integrity check and Secure DFU init
/// packets. BoringSSL uses the CPU's SHA extensions where present, so a 16 MiB image hashes in about as long as
/// the system's OpenSSL took (which this type used before, and which the executable no longer loads); a portable
/// Swift implementation measured about 8 times slower. Feed bytes with ``update(_:)-([UInt8])`` or
/// ``update(_:)-(UnsafeBufferPointer<UInt8>)``, in any number of pieces, then call ``finalize()`` once.
package struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    /// Creates an empty digest.
    package init() {}

    /// Returns the SHA-256 of `bytes` in one call.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: The 32-byte digest.
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = SHA256()
        let done: Void? = bytes.withContiguousStorageIfAvailable { digest.update($0) }
        if done == nil { digest.update(Array(bytes)) }
        return digest.finalize()
    }

    /// Adds `bytes` to the message.
    ///
    /// - Parameter bytes: The next piece of the message.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { update($0) }
    }

    /// Adds the bytes in `buffer` to the message.
    ///
    /// - Parameter buffer: The next piece of the message.
    package mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard !buffer.isEmpty else { return }
        hasher.update(bufferPointer: UnsafeRawBufferPointer(buffer))
    }

    /// Pads the message and returns its digest.
    ///
    /// - Returns: The 32-byte digest, most significant byte first.
    package consuming func finalize() -> [UInt8] {
        Array(hasher.finalize())
    }
}

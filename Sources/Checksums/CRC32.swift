internal import SystemZlib

/// CRC-32 (IEEE 802.3, as zlib's `crc32`): the checksum Secure DFU reports in Select, Calculate Checksum and
/// packet receipt notifications.
///
/// Reflected polynomial 0xEDB88320, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF; the check value of ASCII
/// "123456789" is 0xCBF43926. The arithmetic is zlib's, so large images run at zlib's speed.
package struct CRC32: Sendable, Equatable {
    /// The checksum of everything fed so far.
    package private(set) var value: UInt32

    /// Creates a checksum of the empty message, or continues from a known `value`.
    ///
    /// - Parameter value: A CRC-32 previously computed over a prefix of the message.
    package init(continuingFrom value: UInt32 = 0) {
        self.value = value
    }

    /// Returns the CRC-32 of `bytes`.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: Its CRC-32.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Extends the checksum with `bytes`.
    ///
    /// - Parameter bytes: The next piece of the message.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update($0) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { update($0) } }
    }

    /// Extends the checksum with the bytes in `buffer`.
    ///
    /// - Parameter buffer: The next piece of the message.
    package mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard var base = buffer.baseAddress else { return }
        var remaining = buffer.count
        var crc = UInt(value)
        while remaining > 0 {
            let chunk = min(remaining, Int(UInt32.max >> 1))
            crc = crc32(crc, base, UInt32(chunk))
            base += chunk
            remaining -= chunk
        }
        value = UInt32(truncatingIfNeeded: crc)
    }
}

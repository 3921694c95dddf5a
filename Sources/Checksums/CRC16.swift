/// CRC-16/CCITT-FALSE: the firmware checksum of legacy DFU init packets.
///
/// Polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR; the check value of ASCII "123456789"
/// is 0x29B1 (dfu-protocols.md §0.2, matching the SDK 11 bootloader's `crc16_compute`).
package enum CRC16 {
    /// Returns the CRC-16/CCITT-FALSE of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The message.
    ///   - initial: The running value to continue from; 0xFFFF starts a new message.
    /// - Returns: The checksum.
    package static func checksum(_ bytes: some Sequence<UInt8>, initial: UInt16 = 0xFFFF) -> UInt16 {
        var crc = initial
        for byte in bytes {
            crc = (crc >> 8) | (crc << 8)
            crc ^= UInt16(byte)
            crc ^= (crc & 0xFF) >> 4
            crc ^= crc << 12
            crc ^= (crc & 0xFF) << 5
        }
        return crc
    }
}

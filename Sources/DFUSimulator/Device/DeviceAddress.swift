/// A Bluetooth device address, six bytes, shown most significant byte first as BlueZ prints it.
///
/// `bytes[0]` is the most significant byte (`AA` in `AA:BB:CC:DD:EE:FF`) and `bytes[5]` the least significant
/// one, the byte the SoftDevice stores in `ble_gap_addr_t.addr[0]`.
package struct DeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The six address bytes, most significant first.
    package let bytes: [UInt8]

    /// Creates an address from six bytes, most significant first.
    ///
    /// - Parameter bytes: Exactly six bytes; any other count is a programmer error.
    package init(bytes: [UInt8]) {
        precondition(bytes.count == 6, "a device address has 6 bytes, got \(bytes.count)")
        self.bytes = bytes
    }

    /// Parses the text form `AA:BB:CC:DD:EE:FF` (hex digits in either case).
    ///
    /// - Parameter text: Six two-digit hex groups separated by colons.
    /// Fails when `text` is not of that form.
    package init?(_ text: String) {
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == 6 else { return nil }
        var parsed: [UInt8] = []
        for group in groups {
            guard group.count == 2, let byte = UInt8(group, radix: 16) else { return nil }
            parsed.append(byte)
        }
        self.bytes = parsed
    }

    /// The text form, upper-case hex, most significant byte first.
    package var description: String {
        let digits = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    /// The address an unbonded Secure DFU bootloader (and the SDK 11 legacy bootloader entered without peer
    /// data) advertises with: the least significant byte plus one, wrapping within that byte with no carry.
    ///
    /// nRF5 SDK 15–17 `nrf_dfu_ble.c` `gap_address_change()` does `addr.addr[0] += 1` on a `uint8_t`, so
    /// `…:FF` becomes `…:00` and no other byte changes.
    package var bootloaderAddress: DeviceAddress {
        var next = bytes
        next[5] &+= 1
        return DeviceAddress(bytes: next)
    }
}

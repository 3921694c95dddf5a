/// A 48-bit Bluetooth device address that round-trips through its `AA:BB:CC:DD:EE:FF` form.
///
/// The text form is most-significant byte first, as BlueZ prints it; the last pair is the least-significant
/// byte, the one Nordic's unbonded bootloaders increment.
package struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes, most-significant first (text order).
    package let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// Creates an address from its six bytes in text order.
    ///
    /// - Parameter bytes: Most-significant byte first.
    package init(_ bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        self.bytes = bytes
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case) or the same twelve hex digits without separators.
    ///
    /// - Parameter text: The address text.
    /// - Throws: ``BluetoothAddressParseError`` naming the text.
    package init(parsing text: String) throws(BluetoothAddressParseError) {
        let pairs: [Substring]
        if text.contains(":") {
            pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        } else if text.count == 12 {
            var chunks: [Substring] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                chunks.append(text[index..<next])
                index = next
            }
            pairs = chunks
        } else {
            throw BluetoothAddressParseError(text: text)
        }
        var values: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, let value = UInt8(pair, radix: 16) else {
                throw BluetoothAddressParseError(text: text)
            }
            values.append(value)
        }
        guard values.count == 6 else { throw BluetoothAddressParseError(text: text) }
        bytes = (values[0], values[1], values[2], values[3], values[4], values[5])
    }

    /// The address as `AA:BB:CC:DD:EE:FF`, uppercase.
    package var description: String {
        let values = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5]
        let digits = Array("0123456789ABCDEF")
        return values.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    /// The address an unbonded Nordic bootloader advertises for a device at this address.
    ///
    /// The least-significant byte (the last pair of the text form) is incremented with 8-bit wrap-around and
    /// no carry into the other bytes: `…:EE:FF` becomes `…:EE:00`. Every unbonded Secure bootloader does this,
    /// on buttonless and on button entry (SDK 12.3–15 `nrf_dfu_ble.c`, `gap_address_change`), and so does the
    /// SDK 6.1 legacy bootloader without peer data (dfu-protocols.md §1.11, §2.10). nrfutil adds with carry,
    /// which differs only for addresses ending in `FF`.
    package var incrementedLeastSignificantByte: BluetoothAddress {
        BluetoothAddress((bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5 &+ 1))
    }

    /// Compares all six bytes.
    package static func == (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes == rhs.bytes
    }

    /// Hashes all six bytes.
    package func hash(into hasher: inout Hasher) {
        for byte in [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] { hasher.combine(byte) }
    }
}

/// The text given as a Bluetooth address is not `AA:BB:CC:DD:EE:FF` or twelve hex digits.
package struct BluetoothAddressParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text that failed to parse.
    package var text: String

    /// Creates the error for `text`.
    ///
    /// - Parameter text: The text that failed to parse.
    package init(text: String) {
        self.text = text
    }

    /// One line naming the text and the expected form.
    package var description: String {
        "'\(text)' is not a bluetooth address: expected six hex pairs like 'AA:BB:CC:DD:EE:FF'"
    }
}

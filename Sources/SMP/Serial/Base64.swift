/// Base64 (RFC 4648 §4, with padding) for the SMP console framing; the SMP module imports only the standard library.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// The text of `bytes`, padded to whole quads.
    static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            let b0 = input[index]
            let b1 = count > 1 ? input[index + 1] : 0
            let b2 = count > 2 ? input[index + 2] : 0
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            output.append(count > 1 ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            output.append(count > 2 ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return output
    }

    /// The bytes of whole, padded quads; `nil` for a length that is not a multiple of 4, a character outside the
    /// alphabet, or padding anywhere but at the end.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let input = Array(text)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let quad = input[index..<index + 4]
            let isLast = index + 4 == input.count
            let padding = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, padding == 0 || isLast else { return nil }
            var value: UInt32 = 0
            for (position, character) in quad.enumerated() {
                let digit: UInt8
                if position >= 4 - padding {
                    digit = 0
                } else {
                    digit = values[Int(character)]
                    guard digit != 0xFF else { return nil }
                }
                value = value << 6 | UInt32(digit)
            }
            // Canonical form only: the bits under the padding are zero (RFC 4648 §3.5).
            guard padding == 0 || value & (padding == 1 ? 0xFF : 0xFFFF) == 0 else { return nil }
            output.append(UInt8(value >> 16))
            if padding < 2 { output.append(UInt8((value >> 8) & 0xFF)) }
            if padding < 1 { output.append(UInt8(value & 0xFF)) }
            index += 4
        }
        return output
    }
}

/// CRC-16/XMODEM (polynomial 0x1021, initial 0, no reflection): Zephyr's `crc16_itu_t(0x0000, …)` in
/// `serial_util.c`.
enum CRC16XMODEM {
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        }
        return crc
    }
}

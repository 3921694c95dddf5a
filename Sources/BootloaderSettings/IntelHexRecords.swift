/// Sparse memory as Intel HEX, the way Python `intelhex` 2.3 writes it.
///
/// `IntelHex.write_hex_file` is how nrfutil writes settings pages: records of up to 16 contiguous bytes starting wherever data starts (not
/// aligned), never across a 64 KiB boundary, a type-4 extended linear address record first and whenever the upper
/// 16 bits grow (only when some address is above 0xFFFF), then `:00000001FF`. Lines end with `\n`.
enum IntelHexRecords {
    static func text(_ memory: [UInt32: UInt8]) -> String {
        let addresses = memory.keys.sorted()
        var lines: [String] = []
        func record(_ type: UInt8, _ address: UInt16, _ data: [UInt8]) {
            var bytes = [UInt8(data.count), UInt8(address >> 8), UInt8(address & 0xFF), type] + data
            bytes.append(UInt8(truncatingIfNeeded: 0x100 - Int(bytes.reduce(0) { $0 &+ $1 })))
            lines.append(":" + bytes.map { hexByte($0) }.joined())
        }
        if let last = addresses.last {
            let needOffset = last > 0xFFFF
            var index = 0
            while index < addresses.count {
                let high = addresses[index] >> 16
                if needOffset { record(4, 0, [UInt8(high >> 8), UInt8(high & 0xFF)]) }
                while index < addresses.count, addresses[index] >> 16 == high {
                    let start = addresses[index]
                    var data: [UInt8] = []
                    while data.count < 16, index < addresses.count, addresses[index] == start + UInt32(data.count),
                        addresses[index] >> 16 == high
                    {
                        data.append(memory[addresses[index]] ?? 0xFF)
                        index += 1
                    }
                    record(0, UInt16(start & 0xFFFF), data)
                }
            }
        }
        lines.append(":00000001FF")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

package import DeviceLink

/// Builds Intel HEX text for tests: records with correct checksums unless told otherwise.
package enum HexRecords {
    /// One record line (no line end): `:LLAAAATT…CC`.
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - offset: The 16-bit address field.
    ///   - data: The data bytes.
    ///   - checksum: A checksum to use instead of the correct one.
    ///   - lowercase: Whether to write lowercase digits.
    /// - Returns: The record's text.
    package static func line(
        type: UInt8,
        offset: UInt16 = 0,
        data: [UInt8] = [],
        checksum: UInt8? = nil,
        lowercase: Bool = false
    ) -> String {
        let bytes = [UInt8(data.count), UInt8(offset >> 8), UInt8(offset & 0xFF), type] + data
        let sum = bytes.reduce(UInt8(0)) { $0 &+ $1 }
        let all = bytes + [checksum ?? (0 &- sum)]
        let text =
            ":"
            + all.map { byte in
                let digits = String(byte, radix: 16, uppercase: !lowercase)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
        return text
    }

    /// A data record.
    package static func data(_ offset: UInt16, _ bytes: [UInt8]) -> String {
        line(type: 0, offset: offset, data: bytes)
    }

    /// An extended linear address record (type 04) for `upper << 16`.
    package static func linear(_ upper: UInt16) -> String {
        line(type: 4, data: [UInt8(upper >> 8), UInt8(upper & 0xFF)])
    }

    /// An extended segment address record (type 02) for `segment << 4`.
    package static func segment(_ segment: UInt16) -> String {
        line(type: 2, data: [UInt8(segment >> 8), UInt8(segment & 0xFF)])
    }

    /// The end-of-file record.
    package static let endOfFile = ":00000001FF"

    /// Lines joined with LF and a final LF, as bytes.
    package static func file(_ lines: [String], lineEnd: String = "\n") -> [UInt8] {
        Array((lines.joined(separator: lineEnd) + lineEnd).utf8)
    }
}

/// A small deterministic random number generator, so generated test inputs repeat for a seed: DeviceLink's SplitMix64,
/// the one the fault plans draw from.
package typealias SeededGenerator = SplitMix64

/// One TLV entry: `it_type` u16, `it_len` u16 (little-endian), then the value (`struct image_tlv`).
package struct MCUbootTLV: Sendable, Equatable {
    /// `it_type`.
    package var type: UInt16
    /// The value.
    package var value: [UInt8]
    /// Where the entry's 4-byte head starts in the file.
    package var offset: Int

    /// imgtool's name for the type (`TLV_VALUES` in `imgtool/image.py`), `UNKNOWN` otherwise, as `dumpinfo` prints.
    package var typeName: String { Self.names[type] ?? "UNKNOWN" }

    /// Type numbers from MCUboot's `image.h` with imgtool's names.
    package static let names: [UInt16: String] = [
        0x01: "KEYHASH", 0x02: "PUBKEY", 0x10: "SHA256", 0x11: "SHA384", 0x12: "SHA512", 0x20: "RSA2048",
        0x22: "ECDSASIG", 0x23: "RSA3072", 0x24: "ED25519", 0x25: "SIG_PURE", 0x30: "ENCRSA2048", 0x31: "ENCKW",
        0x32: "ENCEC256", 0x33: "ENCX25519", 0x34: "ENCX25519_SHA512", 0x40: "DEPENDENCY", 0x50: "SEC_CNT",
        0x60: "BOOT_RECORD", 0x70: "DECOMP_SIZE", 0x71: "DECOMP_SHA", 0x72: "DECOMP_SIGNATURE", 0x73: "COMP_DEC_SIZE",
        0x74: "UUID_VID", 0x75: "UUID_CID",
    ]

    /// `IMAGE_TLV_KEYHASH`.
    package static let keyHash: UInt16 = 0x01
    /// `IMAGE_TLV_PUBKEY`.
    package static let publicKey: UInt16 = 0x02
    /// `IMAGE_TLV_SHA256`.
    package static let sha256: UInt16 = 0x10
    /// `IMAGE_TLV_ECDSA_SIG`.
    package static let ecdsaSignature: UInt16 = 0x22
    /// `IMAGE_TLV_ED25519`.
    package static let ed25519Signature: UInt16 = 0x24
}

/// A TLV area: the 4-byte info header (`struct image_tlv_info`: magic u16, total size u16 including itself) and
/// its entries.
package struct MCUbootTLVArea: Sendable, Equatable {
    /// `IMAGE_TLV_INFO_MAGIC`: the unprotected area.
    package static let unprotectedMagic: UInt16 = 0x6907
    /// `IMAGE_TLV_PROT_INFO_MAGIC`: the protected area, covered by the hash.
    package static let protectedMagic: UInt16 = 0x6908

    /// The area's magic.
    package var magic: UInt16
    /// Where the info header starts in the file.
    package var offset: Int
    /// `it_tlv_tot`: the area's size including the info header.
    package var totalSize: Int
    /// The entries in file order.
    package var entries: [MCUbootTLV]

    /// Parses the area at `offset`.
    static func parse(_ bytes: [UInt8], at offset: Int, magic expected: UInt16, file: String)
        throws(MCUbootImageError) -> MCUbootTLVArea
    {
        let name = expected == protectedMagic ? "protected TLV area" : "TLV area"
        guard offset + 4 <= bytes.count else {
            throw .badTLVArea(file: file, offset: offset, problem: "missing: the file ends before the \(name)'s header")
        }
        let magic = littleEndian16(bytes, offset)
        guard magic == expected else {
            throw .badTLVArea(
                file: file, offset: offset,
                problem: "magic is 0x\(String(magic, radix: 16)), expected 0x\(String(expected, radix: 16)) (\(name))")
        }
        let total = Int(littleEndian16(bytes, offset + 2))
        guard total >= 4, offset + total <= bytes.count else {
            throw .badTLVArea(
                file: file, offset: offset,
                problem: "size \(total) runs past the end of the file (\(bytes.count - offset) bytes left)")
        }
        var entries: [MCUbootTLV] = []
        var position = offset + 4
        while position < offset + total {
            guard position + 4 <= offset + total else {
                throw .badTLVArea(file: file, offset: position, problem: "ends inside a TLV's 4-byte head")
            }
            let type = littleEndian16(bytes, position)
            let length = Int(littleEndian16(bytes, position + 2))
            guard position + 4 + length <= offset + total else {
                throw .badTLV(
                    file: file, offset: position, type: type,
                    problem: "of \(length) bytes runs past the end of its area")
            }
            entries.append(
                MCUbootTLV(type: type, value: Array(bytes[position + 4..<position + 4 + length]), offset: position))
            position += 4 + length
        }
        return MCUbootTLVArea(magic: magic, offset: offset, totalSize: total, entries: entries)
    }
}

func littleEndian16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
}

func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
}

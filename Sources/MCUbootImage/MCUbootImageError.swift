/// Why a file is not a usable MCUboot image, or why its checks failed; every message names the file and the place.
package enum MCUbootImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the 32-byte header.
    case tooShort(file: String, size: Int)
    /// The first word is not `IMAGE_MAGIC` (0x96f3b83d).
    case badMagic(file: String, found: UInt32)
    /// A header field points outside the file, or is impossible.
    case badHeader(file: String, field: String, problem: String)
    /// A TLV area's info header is missing, has the wrong magic, or its size disagrees with the header.
    case badTLVArea(file: String, offset: Int, problem: String)
    /// A TLV runs past its area.
    case badTLV(file: String, offset: Int, type: UInt16, problem: String)
    /// The image has no SHA-256 TLV (0x10).
    case missingHash(file: String)
    /// The SHA-256 TLV does not match the header, body and protected TLVs.
    case hashMismatch(file: String, stored: [UInt8], computed: [UInt8])
    /// `--verify-key` was given but the image carries no signature of that key's type.
    case unsigned(file: String, keyType: String)
    /// The signature TLV does not verify with the key.
    case signatureInvalid(file: String, keyFile: String, tlv: String)
    /// The key hash TLV names another key.
    case keyHashMismatch(file: String, keyFile: String)
    /// The key file holds no key imgtool writes (PEM, ECDSA P-256 or ed25519, private or public).
    case unusableKey(file: String, problem: String)

    package var description: String {
        switch self {
        case .tooShort(let file, let size):
            "\(file): \(size) bytes is shorter than the 32-byte MCUboot image header"
        case .badMagic(let file, let found):
            "\(file): header magic is \(hex32(found)), not MCUboot's 0x96F3B83D (not a signed MCUboot image: "
                + "sign it with imgtool)"
        case .badHeader(let file, let field, let problem): "\(file): header \(field) \(problem)"
        case .badTLVArea(let file, let offset, let problem):
            "\(file) offset \(hex32(UInt32(offset))): TLV area \(problem)"
        case .badTLV(let file, let offset, let type, let problem):
            "\(file) offset \(hex32(UInt32(offset))): TLV 0x\(String(type, radix: 16)) \(problem)"
        case .missingHash(let file): "\(file): no SHA256 TLV (0x10): MCUboot would refuse to boot it"
        case .hashMismatch(let file, let stored, let computed):
            "\(file): SHA256 TLV is \(hexDigits(stored)) but header, body and protected TLVs hash to \(hexDigits(computed))"
        case .unsigned(let file, let keyType): "\(file): no \(keyType) signature TLV to verify"
        case .signatureInvalid(let file, let keyFile, let tlv):
            "\(file): \(tlv) signature does not verify with '\(keyFile)'"
        case .keyHashMismatch(let file, let keyFile): "\(file): KEYHASH TLV names another key than '\(keyFile)'"
        case .unusableKey(let file, let problem): "\(file): \(problem)"
        }
    }
}

/// `0x0000ABCD`.
func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

/// Lowercase hex digits without separators, as imgtool prints digests.
func hexDigits(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

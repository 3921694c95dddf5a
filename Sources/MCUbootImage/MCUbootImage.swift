import Checksums

/// A signed MCUboot image file (`imgtool sign` output), parsed strictly: header, body, protected TLVs, TLVs, and
/// the trailer when the file was padded to a slot (`--pad`, `--confirm`).
///
/// The layout (MCUboot `image.h`, `bootutil/src/image_validate.c`):
/// header (`hdr_size` bytes) | body (`img_size`) | protected TLV area (`protect_tlv_size`, magic 0x6908) |
/// TLV area (magic 0x6907) | padding and trailer (optional, up to the slot size).
/// The SHA-256 TLV covers header, body and protected TLVs.
package struct MCUbootImage: Sendable, Equatable {
    /// The file's name, for messages.
    package var file: String
    /// The whole file.
    package var bytes: [UInt8]
    /// The header.
    package var header: MCUbootImageHeader
    /// The protected TLV area, when `protect_tlv_size` is not 0.
    package var protectedTLVs: MCUbootTLVArea?
    /// The TLV area.
    package var tlvs: MCUbootTLVArea
    /// The trailer, when the file continues past the TLV area.
    package var trailer: MCUbootTrailer?

    /// Parses a file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - file: Its name, for messages.
    /// - Throws: ``MCUbootImageError``.
    package init(bytes: [UInt8], file: String) throws(MCUbootImageError) {
        self.file = file
        self.bytes = bytes
        guard bytes.count >= MCUbootImageHeader.size else { throw .tooShort(file: file, size: bytes.count) }
        let magic = littleEndian32(bytes, 0)
        guard magic == MCUbootImageHeader.magic else { throw .badMagic(file: file, found: magic) }
        let header = MCUbootImageHeader(
            loadAddress: littleEndian32(bytes, 4), headerSize: Int(littleEndian16(bytes, 8)),
            protectedTLVSize: Int(littleEndian16(bytes, 10)), imageSize: Int(littleEndian32(bytes, 12)),
            flags: littleEndian32(bytes, 16),
            version: MCUbootVersion(
                major: bytes[20], minor: bytes[21], revision: littleEndian16(bytes, 22),
                build: littleEndian32(bytes, 24)
            ))
        guard header.headerSize >= MCUbootImageHeader.size else {
            throw .badHeader(file: file, field: "hdr_size", problem: "is \(header.headerSize), less than 32")
        }
        let bodyEnd = header.headerSize + header.imageSize
        guard bodyEnd <= bytes.count else {
            throw .badHeader(
                file: file, field: "img_size",
                problem: "is \(header.imageSize): header and body need \(bodyEnd) bytes, the file has \(bytes.count)")
        }
        self.header = header
        if header.protectedTLVSize > 0 {
            let area = try MCUbootTLVArea.parse(bytes, at: bodyEnd, magic: MCUbootTLVArea.protectedMagic, file: file)
            guard area.totalSize == header.protectedTLVSize else {
                throw .badTLVArea(
                    file: file, offset: bodyEnd,
                    problem:
                        "size \(area.totalSize) differs from the header's protect_tlv_size \(header.protectedTLVSize)")
            }
            protectedTLVs = area
        } else {
            protectedTLVs = nil
        }
        let tlvStart = bodyEnd + header.protectedTLVSize
        tlvs = try MCUbootTLVArea.parse(bytes, at: tlvStart, magic: MCUbootTLVArea.unprotectedMagic, file: file)
        let end = tlvStart + tlvs.totalSize
        trailer = end < bytes.count ? MCUbootTrailer(bytes, imageEnd: end) : nil
    }

    /// The bytes the SHA-256 TLV and the signatures cover: header, body and protected TLVs.
    package var hashedBytes: ArraySlice<UInt8> {
        bytes[0..<header.headerSize + header.imageSize + header.protectedTLVSize]
    }

    /// The body.
    package var body: ArraySlice<UInt8> { bytes[header.headerSize..<header.headerSize + header.imageSize] }

    /// The first TLV of `type` in the unprotected area.
    ///
    /// - Parameter type: The TLV type.
    /// - Returns: The TLV, or `nil`.
    package func tlv(_ type: UInt16) -> MCUbootTLV? {
        tlvs.entries.first { $0.type == type }
    }

    /// The SHA-256 TLV's value: the image hash MCUboot and SMP's image state name the image by.
    package var storedHash: [UInt8]? { tlv(MCUbootTLV.sha256)?.value }

    /// Checks the SHA-256 TLV against header, body and protected TLVs, as MCUboot does before booting.
    ///
    /// - Returns: The hash.
    /// - Throws: ``MCUbootImageError/missingHash(file:)`` or ``MCUbootImageError/hashMismatch(file:stored:computed:)``.
    @discardableResult
    package func verifiedHash() throws(MCUbootImageError) -> [UInt8] {
        guard let stored = storedHash else { throw .missingHash(file: file) }
        let computed = SHA256.hash(hashedBytes)
        guard stored == computed else { throw .hashMismatch(file: file, stored: stored, computed: computed) }
        return stored
    }

    /// What the device does with the image right after the upload, from the trailer imgtool wrote.
    package var swapRequestedByTrailer: MCUbootTrailer.SwapRequest? { trailer?.swapRequest }
}

/// The image trailer at the end of a padded slot image (MCUboot `bootutil_public.c`; imgtool `dumpinfo.py`).
///
/// From the end: the 16-byte boot magic, then `image_ok`, `copy_done` and `swap_info` one alignment unit (8 bytes
/// by default) apart, then the 4-byte swap size.
package struct MCUbootTrailer: Sendable, Equatable {
    /// `BOOT_MAGIC`, the trailer magic for the default 8-byte maximum alignment.
    package static let bootMagic: [UInt8] = [
        0x77, 0xC2, 0x95, 0xF3, 0x60, 0xD2, 0xEF, 0x7F, 0x35, 0x52, 0x50, 0x0F, 0x2C, 0xB6, 0x79, 0x80,
    ]
    /// The last 14 bytes of the magic for other alignments, whose first 2 bytes hold the alignment.
    package static let bootMagic2: [UInt8] = [
        0x2D, 0xE1, 0x5D, 0x29, 0x41, 0x0B, 0x8D, 0x77, 0x67, 0x9C, 0x11, 0x0F, 0x1F, 0x8A,
    ]

    /// What MCUboot does with a secondary slot holding this trailer (`boot_swap_type`'s table).
    package enum SwapRequest: Sendable, Equatable {
        /// Magic good, `image_ok` unset: swap for one test boot (`imgtool sign --pad`).
        case test
        /// Magic good, `image_ok` set: swap permanently (`imgtool sign --confirm`).
        case permanent
    }

    /// The last 16 bytes.
    package var magic: [UInt8]
    /// The maximum write alignment the magic implies, `nil` when the magic is invalid.
    package var maximumAlignment: Int?
    /// `image_ok` (1 is set).
    package var imageOK: UInt8?
    /// `copy_done`.
    package var copyDone: UInt8?
    /// `swap_info`.
    package var swapInfo: UInt8?
    /// The swap size (0xFFFFFFFF when unknown).
    package var swapSize: UInt32?
    /// Bytes between the end of the TLV area and the end of the file.
    package var paddedSize: Int

    init(_ bytes: [UInt8], imageEnd: Int) {
        paddedSize = bytes.count - imageEnd
        magic = Array(bytes.suffix(16))
        if magic == Self.bootMagic {
            maximumAlignment = 8
        } else if magic.count == 16, Array(magic.suffix(14)) == Self.bootMagic2 {
            maximumAlignment = Int(magic[0]) | Int(magic[1]) << 8
        } else {
            maximumAlignment = nil
        }
        guard let alignment = maximumAlignment, alignment > 0 else { return }
        // imgtool dumpinfo: offsets from the end, each field one alignment unit before the last.
        var position = bytes.count - 16 - max(0, alignment - 16)
        func next() -> Int? {
            position -= alignment
            return position >= imageEnd ? position : nil
        }
        if let at = next() { imageOK = bytes[at] }
        if let at = next() { copyDone = bytes[at] }
        if let at = next() { swapInfo = bytes[at] }
        if let at = next(), at + 4 <= bytes.count { swapSize = littleEndian32(bytes, at) }
    }

    /// Whether the trailer asks for a swap, and which.
    package var swapRequest: SwapRequest? {
        guard maximumAlignment != nil else { return nil }
        return imageOK == 1 ? .permanent : .test
    }
}

/// The end-of-central-directory record and the central directory of a zip archive, parsed but not yet trusted.
///
/// Offsets and sizes are checked against the archive's length here; names, flags and methods are judged by
/// ``ZipArchive``.
struct CentralDirectory {
    /// One central directory file header (APPNOTE 4.3.12); all fields little-endian.
    struct Record {
        /// The name as stored.
        var rawName: [UInt8]
        /// The name decoded as UTF-8 (nrfutil writes ASCII names; invalid bytes become U+FFFD).
        var name: String
        /// General purpose bit flags: bit 0 encrypted, bit 3 data descriptor, bit 6 strong encryption.
        var flags: UInt16
        /// Compression method: 0 stored, 8 deflated.
        var method: UInt16
        /// CRC-32 of the uncompressed data.
        var crc32: UInt32
        /// Bytes of (compressed) data after the local header.
        var compressedSize: Int
        /// Bytes after inflation.
        var uncompressedSize: Int
        /// Offset of the entry's local file header from the start of the archive.
        var localHeaderOffset: Int
    }

    /// Offset of the first central directory header; entry data must end before it.
    var start: Int
    /// The headers in stored order.
    var records: [Record]

    private static let endRecordSignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let headerSignature: UInt32 = 0x0201_4B50

    /// Finds the end record and reads every central directory header.
    ///
    /// - Parameters:
    ///   - bytes: The whole archive.
    ///   - archive: Display name for errors.
    /// - Throws: `notZipArchive`, `truncatedArchive`, `fieldOutOfRange`, `badSignature`, `zip64NotSupported`,
    ///   `multiDiskNotSupported`.
    init(bytes: [UInt8], archive: String) throws(DFUPackageError) {
        guard let endOffset = Self.endRecordOffset(in: bytes) else { throw .notZipArchive(archive: archive) }
        if endOffset >= 20, bytes.littleEndian(UInt32.self, at: endOffset - 20) == Self.zip64LocatorSignature {
            throw .zip64NotSupported(archive: archive)
        }
        // The end record is 22 bytes; endRecordOffset(in:) checked that they exist.
        func field16(_ offset: Int) -> UInt16 { bytes.littleEndian(UInt16.self, at: endOffset + offset) ?? 0 }
        func field32(_ offset: Int) -> UInt32 { bytes.littleEndian(UInt32.self, at: endOffset + offset) ?? 0 }
        let thisDisk = field16(4)
        let directoryDisk = field16(6)
        let entriesOnDisk = field16(8)
        let totalEntries = field16(10)
        let directorySize = field32(12)
        let directoryOffset = field32(16)
        if totalEntries == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw .zip64NotSupported(archive: archive)
        }
        guard thisDisk == 0, directoryDisk == 0, entriesOnDisk == totalEntries else {
            throw .multiDiskNotSupported(archive: archive)
        }
        // Both fields are u32, so their sum cannot overflow Int; each must point inside the bytes before the end record.
        let start = Int(directoryOffset)
        let end = start + Int(directorySize)
        guard start <= endOffset else {
            throw .fieldOutOfRange(
                archive: archive, region: .endRecord, field: "central directory offset", value: start,
                bound: .endRecord(endOffset))
        }
        guard end <= endOffset else {
            throw .fieldOutOfRange(
                archive: archive, region: .endRecord, field: "central directory size", value: Int(directorySize),
                bound: .bytesAvailable(endOffset - start))
        }
        // Every directory header is at least 46 bytes: a count that cannot fit is refused before any is read.
        guard Int(totalEntries) * 46 <= end - start else {
            throw .fieldOutOfRange(
                archive: archive, region: .endRecord, field: "entry count", value: Int(totalEntries),
                bound: .entriesFitting((end - start) / 46))
        }

        var records: [Record] = []
        var position = start
        for _ in 0..<totalEntries {
            let record = try Self.record(at: position, in: bytes, end: end, archive: archive)
            records.append(record.record)
            position = record.next
        }
        self.start = start
        self.records = records
    }

    /// Searches backwards for the end record: its signature, with a comment length that reaches exactly to the end.
    private static func endRecordOffset(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 22 else { return nil }
        let lowest = max(0, bytes.count - 22 - Int(UInt16.max))
        for offset in stride(from: bytes.count - 22, through: lowest, by: -1)
        where bytes.littleEndian(UInt32.self, at: offset) == endRecordSignature {
            if let commentLength = bytes.littleEndian(UInt16.self, at: offset + 20),
                offset + 22 + Int(commentLength) == bytes.count
            {
                return offset
            }
        }
        return nil
    }

    private static func record(
        at position: Int,
        in bytes: [UInt8],
        end: Int,
        archive: String
    ) throws(DFUPackageError) -> (record: Record, next: Int) {
        guard position + 46 <= end else { throw .truncatedArchive(archive: archive, region: .centralDirectory) }
        func field16(_ offset: Int) -> UInt16 { bytes.littleEndian(UInt16.self, at: position + offset) ?? 0 }
        func field32(_ offset: Int) -> UInt32 { bytes.littleEndian(UInt32.self, at: position + offset) ?? 0 }
        guard field32(0) == headerSignature else { throw .badSignature(archive: archive, region: .centralDirectory) }
        let nameLength = Int(field16(28))
        let next = position + 46 + nameLength + Int(field16(30)) + Int(field16(32))
        guard next <= end else {
            throw .fieldOutOfRange(
                archive: archive, region: .centralDirectory, field: "name, extra and comment lengths",
                value: next - position - 46, bound: .bytesAvailable(end - position - 46))
        }
        let compressedSize = field32(20)
        let uncompressedSize = field32(24)
        let localHeaderOffset = field32(42)
        if compressedSize == 0xFFFF_FFFF || uncompressedSize == 0xFFFF_FFFF || localHeaderOffset == 0xFFFF_FFFF {
            throw .zip64NotSupported(archive: archive)
        }
        let rawName = Array(bytes[(position + 46)..<(position + 46 + nameLength)])
        let record = Record(
            rawName: rawName,
            name: String(decoding: rawName, as: UTF8.self),
            flags: field16(8),
            method: field16(10),
            crc32: field32(16),
            compressedSize: Int(compressedSize),
            uncompressedSize: Int(uncompressedSize),
            localHeaderOffset: Int(localHeaderOffset)
        )
        return (record, next)
    }
}

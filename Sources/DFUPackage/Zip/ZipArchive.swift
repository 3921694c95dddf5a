import Checksums

/// The files of a zip archive (PKWARE APPNOTE 6.3), read completely and checked when the value is created.
///
/// Only what firmware packages need is implemented: a single-disk archive without zip64 records whose entries are
/// stored (method 0) or deflated (method 8), optionally with data descriptors (flag bit 3). Every entry is inflated
/// and its CRC-32 compared with the central directory before ``init(bytes:name:limits:)`` returns, so a value that
/// exists holds only verified contents. Entry names that could escape an extraction folder are refused even though
/// nothing is written to disk, because a package containing them was not made by nrfutil and is not trustworthy.
package struct ZipArchive: Sendable, Equatable {
    /// Caps on declared uncompressed sizes, checked before anything is inflated.
    ///
    /// The largest nRF5 part has 1 MiB of flash, so one entry of 16 MiB and 64 MiB in total leave a wide margin for
    /// any real package while keeping a hostile archive from making the tool allocate gigabytes.
    package struct Limits: Sendable, Equatable {
        /// The largest uncompressed size one entry may declare, in bytes (default 16 MiB).
        package var maximumEntrySize: Int
        /// The largest sum of declared uncompressed sizes, in bytes (default 64 MiB).
        package var maximumTotalSize: Int

        /// Creates limits; the defaults suit firmware packages (see ``Limits``).
        ///
        /// - Parameters:
        ///   - maximumEntrySize: The per-entry cap in bytes.
        ///   - maximumTotalSize: The cap on the sum of all entries in bytes.
        package init(maximumEntrySize: Int = 16 << 20, maximumTotalSize: Int = 64 << 20) {
            self.maximumEntrySize = maximumEntrySize
            self.maximumTotalSize = maximumTotalSize
        }
    }

    /// The display name used in error messages, such as `app.zip` or `<stdin>`.
    package let name: String
    /// The names of the file entries in central-directory order; directory entries (ending in `/`) are left out.
    package let entryNames: [String]
    private let files: [String: [UInt8]]

    /// Reads and verifies a whole archive.
    ///
    /// - Parameters:
    ///   - bytes: The archive file's contents.
    ///   - name: The display name for error messages.
    ///   - limits: Caps on declared sizes.
    /// - Throws: ``DFUPackageError`` zip cases: `notZipArchive`, `truncatedArchive`, `fieldOutOfRange`, `badSignature`,
    ///   `zip64NotSupported`, `multiDiskNotSupported`, `encryptedEntry`, `unsupportedCompressionMethod`,
    ///   `unsafeEntryName`, `duplicateEntry`, `localNameMismatch`, `dataDescriptorMismatch`, `entryTooLarge`,
    ///   `archiveTooLarge`, `inflatedSizeExceedsDeclared`, `entrySizeMismatch`, `corruptCompressedData`,
    ///   `entryCRCMismatch`.
    package init(bytes: [UInt8], name: String, limits: Limits = Limits()) throws(DFUPackageError) {
        self.name = name
        let directory = try CentralDirectory(bytes: bytes, archive: name)
        var names: [String] = []
        var files: [String: [UInt8]] = [:]
        var seen: Set<String> = []
        var total = 0
        for record in directory.records {
            guard seen.insert(record.name).inserted else {
                throw .duplicateEntry(archive: name, entry: record.name)
            }
            try Self.checkName(record, archive: name)
            guard record.flags & 0x0041 == 0 else { throw .encryptedEntry(archive: name, entry: record.name) }
            guard record.method == 0 || record.method == 8 else {
                throw .unsupportedCompressionMethod(archive: name, entry: record.name, method: record.method)
            }
            guard record.uncompressedSize <= limits.maximumEntrySize else {
                throw .entryTooLarge(
                    archive: name, entry: record.name, size: record.uncompressedSize, limit: limits.maximumEntrySize)
            }
            total += record.uncompressedSize
            guard total <= limits.maximumTotalSize else {
                throw .archiveTooLarge(archive: name, size: total, limit: limits.maximumTotalSize)
            }
            let contents = try Self.extract(record, from: bytes, directoryStart: directory.start, archive: name)
            if record.name.hasSuffix("/") { continue }
            names.append(record.name)
            files[record.name] = contents
        }
        self.entryNames = names
        self.files = files
    }

    /// Returns the verified contents of the entry called `entryName`, or nil if there is none.
    ///
    /// - Parameter entryName: The full name inside the archive, with `/` separators.
    /// - Returns: The uncompressed bytes.
    package func contents(of entryName: String) -> [UInt8]? {
        files[entryName]
    }

    private static func checkName(_ record: CentralDirectory.Record, archive: String) throws(DFUPackageError) {
        let entry = record.name
        func refuse(_ reason: UnsafeNameReason) -> DFUPackageError {
            .unsafeEntryName(archive: archive, entry: entry, reason: reason)
        }
        guard !record.rawName.isEmpty, !record.rawName.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw refuse(.invalidCharacter)
        }
        guard !record.rawName.contains(UInt8(ascii: "\\")) else { throw refuse(.backslash) }
        let components = entry.split(separator: "/", omittingEmptySubsequences: false)
        let first = components.first.map(String.init) ?? ""
        let hasDriveLetter = first.count == 2 && first.hasSuffix(":")
        guard !entry.hasPrefix("/"), !hasDriveLetter else { throw refuse(.absolutePath) }
        guard !components.contains("..") else { throw refuse(.parentComponent) }
    }

    private static func extract(
        _ record: CentralDirectory.Record,
        from bytes: [UInt8],
        directoryStart: Int,
        archive: String
    ) throws(DFUPackageError) -> [UInt8] {
        let entry = record.name
        let headerOffset = record.localHeaderOffset
        guard headerOffset < directoryStart else {
            throw .fieldOutOfRange(
                archive: archive, region: .directoryEntry(entry: entry), field: "local header offset",
                value: headerOffset, bound: .directoryStart(directoryStart))
        }
        guard let signature = bytes.littleEndian(UInt32.self, at: headerOffset),
            let nameLength = bytes.littleEndian(UInt16.self, at: headerOffset + 26),
            let extraLength = bytes.littleEndian(UInt16.self, at: headerOffset + 28),
            headerOffset + 30 + Int(nameLength) <= directoryStart
        else { throw .truncatedArchive(archive: archive, region: .localHeader(entry: entry)) }
        guard signature == 0x0403_4B50 else {
            throw .badSignature(archive: archive, region: .localHeader(entry: entry))
        }
        let localName = Array(bytes[(headerOffset + 30)..<(headerOffset + 30 + Int(nameLength))])
        guard localName == record.rawName else {
            throw .localNameMismatch(
                archive: archive, entry: entry, localName: String(decoding: localName, as: UTF8.self))
        }
        let dataStart = headerOffset + 30 + Int(nameLength) + Int(extraLength)
        let dataEnd = dataStart + record.compressedSize
        guard dataEnd <= directoryStart else {
            throw .fieldOutOfRange(
                archive: archive, region: .directoryEntry(entry: entry), field: "compressed size",
                value: record.compressedSize, bound: .bytesAvailable(max(0, directoryStart - dataStart)))
        }
        if record.flags & 0x0008 != 0 {
            try checkDataDescriptor(record, at: dataEnd, in: bytes, directoryStart: directoryStart, archive: archive)
        }

        let data = bytes[dataStart..<dataEnd]
        let contents: [UInt8]
        if record.method == 0 {
            guard record.compressedSize == record.uncompressedSize else {
                throw .entrySizeMismatch(
                    archive: archive, entry: entry, declared: record.uncompressedSize, actual: record.compressedSize)
            }
            contents = Array(data)
        } else {
            switch RawInflater.inflate(data, limit: record.uncompressedSize) {
            case .inflated(let inflated): contents = inflated
            case .exceededLimit:
                throw .inflatedSizeExceedsDeclared(archive: archive, entry: entry, declared: record.uncompressedSize)
            case .corrupt: throw .corruptCompressedData(archive: archive, entry: entry)
            }
            guard contents.count == record.uncompressedSize else {
                throw .entrySizeMismatch(
                    archive: archive, entry: entry, declared: record.uncompressedSize, actual: contents.count)
            }
        }
        let crc = CRC32.checksum(contents)
        guard crc == record.crc32 else {
            throw .entryCRCMismatch(archive: archive, entry: entry, expected: record.crc32, actual: crc)
        }
        return contents
    }

    /// Checks the data descriptor after an entry's data: an optional signature 0x08074B50, then CRC-32, compressed
    /// size and uncompressed size, each u32 little-endian, which must equal the central directory's.
    private static func checkDataDescriptor(
        _ record: CentralDirectory.Record,
        at offset: Int,
        in bytes: [UInt8],
        directoryStart: Int,
        archive: String
    ) throws(DFUPackageError) {
        func fields(at position: Int) -> (crc: UInt32, compressed: Int, uncompressed: Int)? {
            guard position + 12 <= directoryStart, let crc = bytes.littleEndian(UInt32.self, at: position),
                let compressed = bytes.littleEndian(UInt32.self, at: position + 4),
                let uncompressed = bytes.littleEndian(UInt32.self, at: position + 8)
            else { return nil }
            return (crc, Int(compressed), Int(uncompressed))
        }
        // The signature is optional, and a CRC may happen to equal it: accept either reading that matches.
        var candidates = [fields(at: offset)]
        if bytes.littleEndian(UInt32.self, at: offset) == 0x0807_4B50 {
            candidates.insert(fields(at: offset + 4), at: 0)
        }
        let present = candidates.compactMap { $0 }
        guard !present.isEmpty else {
            throw .truncatedArchive(archive: archive, region: .dataDescriptor(entry: record.name))
        }
        let expected = (record.crc32, record.compressedSize, record.uncompressedSize)
        guard present.contains(where: { $0 == expected }) else {
            throw .dataDescriptorMismatch(archive: archive, entry: record.name)
        }
    }
}

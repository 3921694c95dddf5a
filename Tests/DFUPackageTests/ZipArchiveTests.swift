import Testing

@testable import DFUPackage

@Suite struct ZipArchiveTests {
    static let text = Array("the quick brown fox jumps over the lazy dog, again and again and again\n".utf8)
    static let firmware = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }

    typealias Entry = ZipWriter.Entry

    @Test("reads stored and deflated entries in directory order")
    func readsStoredAndDeflated() throws {
        let bytes = ZipWriter.archive([
            Entry("manifest.json", Self.text, method: .deflated),
            Entry("app.bin", Self.firmware),
            Entry("empty.dat", [], method: .deflated),
        ])
        let archive = try ZipArchive(bytes: bytes, name: "app.zip")
        #expect(archive.entryNames == ["manifest.json", "app.bin", "empty.dat"])
        #expect(archive.contents(of: "manifest.json") == Self.text)
        #expect(archive.contents(of: "app.bin") == Self.firmware)
        #expect(archive.contents(of: "empty.dat") == [])
        #expect(archive.contents(of: "other") == nil)
    }

    @Test("reads entries with data descriptors", arguments: [ZipWriter.Method.stored, .deflated])
    func readsDataDescriptors(method: ZipWriter.Method) throws {
        var entry = Entry("app.bin", Self.firmware, method: method)
        entry.usesDataDescriptor = true
        let archive = try ZipArchive(bytes: ZipWriter.archive([entry, Entry("b", Self.text)]), name: "app.zip")
        #expect(archive.contents(of: "app.bin") == Self.firmware)
        #expect(archive.contents(of: "b") == Self.text)
    }

    @Test("finds the end record behind an archive comment")
    func findsEndRecordBehindComment() throws {
        // The comment itself contains an end-record signature that must not be mistaken for the real one.
        let comment: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + Array("package comment".utf8)
        let archive = try ZipArchive(bytes: ZipWriter.archive([Entry("a", Self.text)], comment: comment), name: "c.zip")
        #expect(archive.contents(of: "a") == Self.text)
    }

    @Test("skips directory entries")
    func skipsDirectories() throws {
        let bytes = ZipWriter.archive([Entry("dir/", []), Entry("dir/a.bin", Self.text)])
        let archive = try ZipArchive(bytes: bytes, name: "d.zip")
        #expect(archive.entryNames == ["dir/a.bin"])
    }

    @Test(
        "rejects unsafe entry names",
        arguments: [
            ("../x", UnsafeNameReason.parentComponent),
            ("a/../../x", .parentComponent),
            ("..", .parentComponent),
            ("/etc/passwd", .absolutePath),
            ("C:/x.bin", .absolutePath),
            ("a\\b.bin", .backslash),
            ("..\\x", .backslash),
            ("", .invalidCharacter),
            ("a\u{0}b", .invalidCharacter),
        ])
    func rejectsUnsafeNames(name: String, reason: UnsafeNameReason) {
        let bytes = ZipWriter.archive([Entry(name, Self.text)])
        #expect(throws: DFUPackageError.unsafeEntryName(archive: "app.zip", entry: name, reason: reason)) {
            try ZipArchive(bytes: bytes, name: "app.zip")
        }
    }

    @Test("accepts names that only look like parent components")
    func acceptsDotsInsideNames() throws {
        let bytes = ZipWriter.archive([Entry("a..b/..c", Self.text), Entry("./x", Self.text)])
        #expect(try ZipArchive(bytes: bytes, name: "app.zip").entryNames == ["a..b/..c", "./x"])
    }

    @Test("rejects duplicate names")
    func rejectsDuplicates() {
        let bytes = ZipWriter.archive([Entry("a.bin", Self.text), Entry("a.bin", Self.firmware)])
        #expect(throws: DFUPackageError.duplicateEntry(archive: "app.zip", entry: "a.bin")) {
            try ZipArchive(bytes: bytes, name: "app.zip")
        }
    }

    @Test("rejects encrypted entries", arguments: [UInt16(0x0001), 0x0041])
    func rejectsEncrypted(flags: UInt16) {
        var entry = Entry("a.bin", Self.text)
        entry.extraFlags = flags
        #expect(throws: DFUPackageError.encryptedEntry(archive: "app.zip", entry: "a.bin")) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects compression methods other than stored and deflated", arguments: [UInt16(1), 9, 12, 14, 93])
    func rejectsMethods(method: UInt16) {
        var entry = Entry("a.bin", Self.text)
        entry.methodOverride = method
        #expect(
            throws: DFUPackageError.unsupportedCompressionMethod(archive: "app.zip", entry: "a.bin", method: method)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects an entry declaring more than the per-entry limit")
    func rejectsLargeEntry() {
        var entry = Entry("a.bin", Self.text)
        entry.declaredSizeOverride = 16 << 20 + 1
        #expect(
            throws: DFUPackageError.entryTooLarge(
                archive: "app.zip", entry: "a.bin", size: 16 << 20 + 1, limit: 16 << 20)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects entries declaring more than the total limit together")
    func rejectsLargeTotal() {
        let limits = ZipArchive.Limits(maximumEntrySize: 100, maximumTotalSize: 120)
        let bytes = ZipWriter.archive([
            Entry("a", Array(Self.text.prefix(70))), Entry("b", Array(Self.text.prefix(60))),
        ])
        #expect(throws: DFUPackageError.archiveTooLarge(archive: "app.zip", size: 130, limit: 120)) {
            try ZipArchive(bytes: bytes, name: "app.zip", limits: limits)
        }
    }

    @Test("stops inflating a zip bomb at its declared size")
    func rejectsZipBomb() {
        var entry = Entry("bomb.bin", [UInt8](repeating: 0, count: 4 << 20), method: .deflated)
        entry.declaredSizeOverride = 1000
        #expect(
            throws: DFUPackageError.inflatedSizeExceedsDeclared(archive: "b.zip", entry: "bomb.bin", declared: 1000)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "b.zip")
        }
    }

    @Test("rejects a deflated entry shorter than declared")
    func rejectsShortInflation() {
        var entry = Entry("a.bin", Self.firmware, method: .deflated)
        entry.declaredSizeOverride = Self.firmware.count + 4
        #expect(
            throws: DFUPackageError.entrySizeMismatch(
                archive: "app.zip", entry: "a.bin", declared: Self.firmware.count + 4, actual: Self.firmware.count)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects a stored entry whose sizes differ")
    func rejectsStoredSizeMismatch() {
        var entry = Entry("a.bin", Self.text)
        entry.declaredSizeOverride = Self.text.count - 1
        #expect(
            throws: DFUPackageError.entrySizeMismatch(
                archive: "app.zip", entry: "a.bin", declared: Self.text.count - 1, actual: Self.text.count)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects corrupt deflate data")
    func rejectsCorruptDeflate() {
        var bytes = ZipWriter.archive([Entry("a.bin", Self.firmware, method: .deflated)])
        // A first block header with BTYPE = 3 (reserved) is invalid in any deflate stream.
        bytes[30 + 5] = 0x07
        #expect(throws: DFUPackageError.corruptCompressedData(archive: "app.zip", entry: "a.bin")) {
            try ZipArchive(bytes: bytes, name: "app.zip")
        }
    }

    @Test("checks each entry's CRC-32 against the directory", arguments: [ZipWriter.Method.stored, .deflated])
    func rejectsCRCMismatch(method: ZipWriter.Method) {
        var entry = Entry("a.bin", Self.text, method: method)
        entry.crcOverride = 0x1234_5678
        #expect(
            throws: DFUPackageError.entryCRCMismatch(
                archive: "app.zip", entry: "a.bin", expected: 0x1234_5678, actual: 0xF2DD_8BE6)
        ) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects a data descriptor that disagrees with the directory")
    func rejectsDescriptorMismatch() {
        var entry = Entry("a.bin", Self.text)
        entry.usesDataDescriptor = true
        entry.descriptorCRCOverride = 1
        #expect(throws: DFUPackageError.dataDescriptorMismatch(archive: "app.zip", entry: "a.bin")) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects a local header naming another file")
    func rejectsLocalNameMismatch() {
        var entry = Entry("a.bin", Self.text)
        entry.localNameOverride = "b.bin"
        #expect(throws: DFUPackageError.localNameMismatch(archive: "app.zip", entry: "a.bin", localName: "b.bin")) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "app.zip")
        }
    }

    @Test("rejects input without an end record", arguments: [[], [UInt8](repeating: 0, count: 21), Array("PK".utf8)])
    func rejectsNonZip(bytes: [UInt8]) {
        #expect(throws: DFUPackageError.notZipArchive(archive: "x")) { try ZipArchive(bytes: bytes, name: "x") }
    }

    @Test("rejects every truncation of an archive")
    func rejectsTruncation() {
        let bytes = ZipWriter.archive([Entry("a.bin", Self.text), Entry("b.bin", Self.firmware, method: .deflated)])
        for length in 0..<bytes.count {
            #expect(throws: DFUPackageError.self) { try ZipArchive(bytes: Array(bytes[..<length]), name: "t.zip") }
        }
    }

    @Test("names the field and value when the directory points past the data")
    func namesTruncatedRegions() {
        let bytes = ZipWriter.archive([Entry("a.bin", Self.text)])
        let endOffset = bytes.count - 22

        var directoryTooLong = bytes
        directoryTooLong.write32(directoryTooLong.read32(at: endOffset + 12) + 1, at: endOffset + 12)
        let directorySize = Int(bytes.read32(at: endOffset + 12))
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .endRecord, field: "central directory size", value: directorySize + 1,
                bound: .bytesAvailable(directorySize))
        ) { try ZipArchive(bytes: directoryTooLong, name: "t.zip") }

        // Cut the entry's data: keep the directory, but make it claim the data is longer than what precedes it.
        let directoryOffset = Int(bytes.read32(at: endOffset + 16))
        var dataTooLong = bytes
        dataTooLong.write32(UInt32(Self.text.count + 1), at: directoryOffset + 20)
        dataTooLong.write32(UInt32(Self.text.count + 1), at: directoryOffset + 24)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .directoryEntry(entry: "a.bin"), field: "compressed size",
                value: Self.text.count + 1, bound: .bytesAvailable(Self.text.count))
        ) { try ZipArchive(bytes: dataTooLong, name: "t.zip") }

        var headerPastDirectory = bytes
        headerPastDirectory.write32(UInt32(directoryOffset), at: directoryOffset + 42)
        #expect(
            throws: DFUPackageError.fieldOutOfRange(
                archive: "t.zip", region: .directoryEntry(entry: "a.bin"), field: "local header offset",
                value: directoryOffset, bound: .directoryStart(directoryOffset))
        ) { try ZipArchive(bytes: headerPastDirectory, name: "t.zip") }

        var headerNameTooLong = bytes
        headerNameTooLong.write16(0xFFFF, at: 26)
        #expect(throws: DFUPackageError.truncatedArchive(archive: "t.zip", region: .localHeader(entry: "a.bin"))) {
            try ZipArchive(bytes: headerNameTooLong, name: "t.zip")
        }

        var badLocalSignature = bytes
        badLocalSignature[0] = 0
        #expect(throws: DFUPackageError.badSignature(archive: "t.zip", region: .localHeader(entry: "a.bin"))) {
            try ZipArchive(bytes: badLocalSignature, name: "t.zip")
        }
    }

    @Test("rejects a bad central directory signature")
    func rejectsBadDirectorySignature() {
        var bytes = ZipWriter.archive([Entry("a.bin", Self.text)])
        let directoryOffset = Int(bytes.read32(at: bytes.count - 22 + 16))
        bytes[directoryOffset] = 0
        #expect(throws: DFUPackageError.badSignature(archive: "t.zip", region: .centralDirectory)) {
            try ZipArchive(bytes: bytes, name: "t.zip")
        }
    }

    @Test("rejects zip64 markers", arguments: [10, 12, 16])
    func rejectsZip64(endRecordField: Int) {
        var bytes = ZipWriter.archive([Entry("a.bin", Self.text)])
        let offset = bytes.count - 22 + endRecordField
        if endRecordField == 10 {
            bytes.write16(0xFFFF, at: offset)
            bytes.write16(0xFFFF, at: offset - 2)
        } else {
            bytes.write32(0xFFFF_FFFF, at: offset)
        }
        #expect(throws: DFUPackageError.zip64NotSupported(archive: "z.zip")) {
            try ZipArchive(bytes: bytes, name: "z.zip")
        }
    }

    @Test("rejects zip64 sizes in a directory entry")
    func rejectsZip64Entry() {
        var entry = Entry("a.bin", Self.text)
        entry.declaredSizeOverride = 0xFFFF_FFFF
        #expect(throws: DFUPackageError.zip64NotSupported(archive: "z.zip")) {
            try ZipArchive(bytes: ZipWriter.archive([entry]), name: "z.zip")
        }
    }

    @Test("rejects archives spanning disks")
    func rejectsMultiDisk() {
        var bytes = ZipWriter.archive([Entry("a.bin", Self.text)])
        bytes.write16(1, at: bytes.count - 22 + 4)
        #expect(throws: DFUPackageError.multiDiskNotSupported(archive: "m.zip")) {
            try ZipArchive(bytes: bytes, name: "m.zip")
        }
    }
}

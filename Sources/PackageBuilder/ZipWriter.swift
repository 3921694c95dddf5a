import Checksums

/// Writes a zip archive of stored (uncompressed) entries, laid out as Python's `zipfile.ZipFile.write` lays out the
/// packages nrfutil makes: version 2.0, no flags, no extra fields, Unix mode 0644, no data descriptors.
struct ZipWriter {
    /// A local time for the entries' DOS date and time fields.
    struct Timestamp {
        var year: Int
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int

        var dosTime: UInt16 { UInt16(hour << 11 | minute << 5 | second / 2) }
        var dosDate: UInt16 { UInt16(max(year - 1980, 0) << 9 | month << 5 | day) }
    }

    /// The archive's bytes for `entries`, in the given order.
    ///
    /// - Parameters:
    ///   - entries: Names (ASCII in practice; written as UTF-8) and contents.
    ///   - timestamp: The modification time recorded for every entry.
    /// - Returns: The archive.
    /// - Throws: ``PackageBuilderError/packageTooLarge`` past the classic zip format's 4 GiB and 65 535 entry limits.
    static func archive(
        _ entries: [(name: String, bytes: [UInt8])],
        timestamp: Timestamp
    ) throws(PackageBuilderError) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        guard entries.count < 0xFFFF else { throw .packageTooLarge }
        for entry in entries {
            let name = Array(entry.name.utf8)
            guard let size = UInt32(exactly: entry.bytes.count), let offset = UInt32(exactly: out.count),
                name.count < 0xFFFF
            else { throw .packageTooLarge }
            let crc = CRC32.checksum(entry.bytes)
            var common: [UInt8] = []
            common.le16(20)  // version needed to extract
            common.le16(0)  // flags
            common.le16(0)  // stored
            common.le16(timestamp.dosTime)
            common.le16(timestamp.dosDate)
            common.le32(crc)
            common.le32(size)
            common.le32(size)
            common.le16(UInt16(name.count))
            common.le16(0)  // extra field length
            out.le32(0x0403_4B50)
            out += common
            out += name
            out += entry.bytes
            central.le32(0x0201_4B50)
            central.le16(0x0314)  // made by: Unix, zip 2.0
            central += common
            central.le16(0)  // comment length
            central.le16(0)  // disk number
            central.le16(0)  // internal attributes
            central.le32(0o100644 << 16)  // external attributes: regular file, rw-r--r--
            central.le32(offset)
            central += name
        }
        guard let centralOffset = UInt32(exactly: out.count), let centralSize = UInt32(exactly: central.count),
            UInt32(exactly: out.count + central.count) != nil
        else { throw .packageTooLarge }
        out += central
        out.le32(0x0605_4B50)
        out.le16(0)
        out.le16(0)
        out.le16(UInt16(entries.count))
        out.le16(UInt16(entries.count))
        out.le32(centralSize)
        out.le32(centralOffset)
        out.le16(0)
        return out
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

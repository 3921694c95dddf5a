import Checksums
import SystemZlib

/// Builds zip archives in memory for tests, including deliberately broken ones.
///
/// Names and contents are written as given; every override exists to produce one kind of damage that
/// ``ZipArchive`` must reject.
struct ZipWriter {
    /// How an entry's data is stored.
    enum Method {
        case stored
        case deflated
    }

    /// One entry and the ways its records may lie.
    struct Entry {
        var name: String
        var contents: [UInt8]
        var method: Method = .stored
        /// Sets flag bit 3, zeroes the local header's CRC and sizes, and writes a descriptor with a signature.
        var usesDataDescriptor = false
        var extraFlags: UInt16 = 0
        var methodOverride: UInt16?
        var declaredSizeOverride: Int?
        var crcOverride: UInt32?
        var localNameOverride: String?
        var descriptorCRCOverride: UInt32?

        init(_ name: String, _ contents: [UInt8], method: Method = .stored) {
            self.name = name
            self.contents = contents
            self.method = method
        }
    }

    /// Returns the archive of `entries` with an end record carrying `comment`.
    static func archive(_ entries: [Entry], comment: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        var directory: [UInt8] = []
        for entry in entries {
            let data = entry.method == .stored ? entry.contents : deflate(entry.contents)
            let method: UInt16 = entry.methodOverride ?? (entry.method == .stored ? 0 : 8)
            let crc = entry.crcOverride ?? CRC32.checksum(entry.contents)
            let size = UInt32(entry.declaredSizeOverride ?? entry.contents.count)
            let flags = entry.extraFlags | (entry.usesDataDescriptor ? 0x0008 : 0)
            let name = Array(entry.name.utf8)
            let localName = Array((entry.localNameOverride ?? entry.name).utf8)
            let offset = UInt32(bytes.count)

            bytes.append32(0x0403_4B50)
            bytes.append16(20)
            bytes.append16(flags)
            bytes.append16(method)
            bytes.append32(0)  // time and date
            bytes.append32(entry.usesDataDescriptor ? 0 : crc)
            bytes.append32(entry.usesDataDescriptor ? 0 : UInt32(data.count))
            bytes.append32(entry.usesDataDescriptor ? 0 : size)
            bytes.append16(UInt16(localName.count))
            bytes.append16(0)
            bytes += localName + data
            if entry.usesDataDescriptor {
                bytes.append32(0x0807_4B50)
                bytes.append32(entry.descriptorCRCOverride ?? crc)
                bytes.append32(UInt32(data.count))
                bytes.append32(size)
            }

            directory.append32(0x0201_4B50)
            directory.append16(20)
            directory.append16(20)
            directory.append16(flags)
            directory.append16(method)
            directory.append32(0)
            directory.append32(crc)
            directory.append32(UInt32(data.count))
            directory.append32(size)
            directory.append16(UInt16(name.count))
            directory.append16(0)  // extra
            directory.append16(0)  // comment
            directory.append16(0)  // disk
            directory.append16(0)  // internal attributes
            directory.append32(0)  // external attributes
            directory.append32(offset)
            directory += name
        }
        let directoryOffset = UInt32(bytes.count)
        bytes += directory
        bytes.append32(0x0605_4B50)
        bytes.append16(0)
        bytes.append16(0)
        bytes.append16(UInt16(entries.count))
        bytes.append16(UInt16(entries.count))
        bytes.append32(UInt32(directory.count))
        bytes.append32(directoryOffset)
        bytes.append16(UInt16(comment.count))
        bytes += comment
        return bytes
    }

    /// Compresses `input` as raw deflate (no zlib header), as zip method 8 stores it.
    static func deflate(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2_ failed with \(status)")
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 16)
        var input = input
        let result = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return SystemZlib.deflate(&stream, Z_FINISH)
            }
        }
        precondition(result == Z_STREAM_END, "deflate failed with \(result)")
        return Array(output[..<Int(stream.total_out)])
    }
}

extension [UInt8] {
    mutating func append16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Reads a little-endian u32 at `offset`, for patching tests.
    func read32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * UInt32($1)) }
    }

    /// Overwrites four bytes at `offset` with `value`, little-endian.
    mutating func write32(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
    }

    /// Overwrites two bytes at `offset` with `value`, little-endian.
    mutating func write16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}

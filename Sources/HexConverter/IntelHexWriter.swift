/// Writes a binary image as Intel HEX: data records with extended linear address (04) records wherever the upper
/// 16 bits of the address change, then the end-of-file record.
///
/// The output uses uppercase digits and LF line ends, which every reader accepts; with the default 16-byte records
/// it matches `objcopy -I binary -O ihex` record for record (objcopy ends lines with CRLF).
package struct IntelHexWriter {
    private let recordSize: Int
    private var address: UInt64
    private var upper: UInt32?
    private var pending: [UInt8] = []
    private var finished = false

    /// The default number of data bytes per record, as objcopy and nrfutil write.
    package static let defaultRecordSize = 16

    /// Creates a writer for an image that starts at `baseAddress`.
    ///
    /// - Parameters:
    ///   - baseAddress: The address of the first byte.
    ///   - recordSize: Data bytes per record, 1 to 255.
    package init(baseAddress: UInt32, recordSize: Int = defaultRecordSize) {
        precondition((1...255).contains(recordSize), "record size \(recordSize) is outside 1...255")
        self.recordSize = recordSize
        self.address = UInt64(baseAddress)
    }

    /// Converts a whole image in one call.
    ///
    /// - Parameters:
    ///   - bytes: The binary image.
    ///   - baseAddress: The address of its first byte.
    /// - Returns: The Intel HEX text.
    /// - Throws: ``HexConverterError/addressOverflow(_:address:)`` if the image runs past 4 GiB.
    package static func encode(_ bytes: [UInt8], baseAddress: UInt32) throws(HexConverterError) -> [UInt8] {
        var writer = IntelHexWriter(baseAddress: baseAddress)
        var text = try writer.append(bytes)
        text += writer.finish()
        return text
    }

    /// Adds the next bytes of the image and returns the text of every record completed so far.
    ///
    /// - Parameter bytes: The next bytes of the image.
    /// - Returns: Intel HEX text for the complete records.
    /// - Throws: ``HexConverterError/addressOverflow(_:address:)`` if the image runs past 4 GiB.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(HexConverterError) -> [UInt8] {
        precondition(!finished, "append after finish")
        let last = address + UInt64(pending.count) + UInt64(bytes.count)
        guard last <= 1 << 32 else {
            throw .addressOverflow(HexLocation(source: "<binary>", line: 0), address: last - 1)
        }
        pending.append(contentsOf: bytes)
        var text: [UInt8] = []
        text.reserveCapacity(pending.count / recordSize * (11 + 2 * recordSize + 1) + 16)
        var consumed = 0
        while pending.count - consumed >= recordSize {
            let room = 0x1_0000 - Int(address & 0xFFFF)
            let take = min(recordSize, room)
            emitData(pending[consumed..<(consumed + take)], into: &text)
            consumed += take
        }
        pending.removeFirst(consumed)
        return text
    }

    /// Flushes the last partial record and writes the end-of-file record.
    ///
    /// - Returns: The remaining Intel HEX text.
    package mutating func finish() -> [UInt8] {
        precondition(!finished, "finish called twice")
        finished = true
        var text: [UInt8] = []
        var consumed = 0
        while consumed < pending.count {
            let room = 0x1_0000 - Int(address & 0xFFFF)
            let take = min(pending.count - consumed, recordSize, room)
            emitData(pending[consumed..<(consumed + take)], into: &text)
            consumed += take
        }
        pending.removeAll()
        Self.emit(type: 0x01, offset: 0, data: [], into: &text)
        return text
    }

    private mutating func emitData(_ data: ArraySlice<UInt8>, into text: inout [UInt8]) {
        let high = UInt32(truncatingIfNeeded: address >> 16)
        if upper != high {
            Self.emit(type: 0x04, offset: 0, data: [UInt8(high >> 8), UInt8(high & 0xFF)], into: &text)
            upper = high
        }
        Self.emit(type: 0x00, offset: UInt16(address & 0xFFFF), data: data, into: &text)
        address += UInt64(data.count)
    }

    private static let digits = Array("0123456789ABCDEF".utf8)

    private static func emit(type: UInt8, offset: UInt16, data: some Collection<UInt8>, into text: inout [UInt8]) {
        var sum = UInt8(truncatingIfNeeded: data.count) &+ UInt8(offset >> 8) &+ UInt8(offset & 0xFF) &+ type
        text.append(0x3A)
        appendByte(UInt8(data.count), to: &text)
        appendByte(UInt8(offset >> 8), to: &text)
        appendByte(UInt8(offset & 0xFF), to: &text)
        appendByte(type, to: &text)
        for byte in data {
            appendByte(byte, to: &text)
            sum &+= byte
        }
        appendByte(0 &- sum, to: &text)
        text.append(0x0A)
    }

    private static func appendByte(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
}

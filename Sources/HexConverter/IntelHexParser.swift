/// A strict, streaming Intel HEX reader (record types 00–05).
///
/// Feed the input in chunks of any size with ``consume(_:)-([UInt8])`` (or
/// ``consume(_:)-(UnsafeBufferPointer<UInt8>)``), then call ``finish()`` for the image. Memory use is the image's own
/// size in 64 KiB pages plus one line, whatever the size of the text.
///
/// Accepted: upper- and lowercase digits, LF or CRLF line ends, a missing final newline, blank lines, records in
/// any order, 255-byte records, extended linear (04) records whose data runs past offset 0xFFFF (contiguous, as
/// the Intel specification's linear mode adds the offset without wrapping), extended segment (02) records (whose
/// offsets wrap within the 64 KiB segment, as the specification says and objcopy does), and the same bytes written
/// twice. Everything else is a ``HexConverterError`` naming the line.
package struct IntelHexParser {
    private enum Addressing {
        /// Record type 04 (or none yet): address = upper + offset, contiguous.
        case linear(upper: UInt32)
        /// Record type 02: address = base + (offset mod 64 KiB).
        case segment(base: UInt32)
    }

    private let source: String
    private let window: AddressWindow
    private let sizeLimit: Int
    private var memory = SparseMemory()
    private var log = RecordLog()
    private var addressing = Addressing.linear(upper: 0)
    private var startAddress: StartAddress?
    private var endOfFileLine: Int?
    private var line = 0
    private var sawAnyByte = false
    private var sawRecord = false
    private var partialLine: [UInt8] = []
    private var record = [UInt8](repeating: 0, count: 260)

    /// The default limit on the span of the binary image: 64 MiB, far above any nRF5 flash (1 MiB) and small
    /// enough that an application plus UICR words (256 MiB apart) is refused instead of filling a disk.
    package static let defaultSizeLimit = 64 << 20

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - source: The name used in messages (a path, or `<stdin>`).
    ///   - window: Addresses outside this window are dropped as they are read.
    ///   - sizeLimit: The largest span, in bytes, between the lowest and highest kept address.
    package init(source: String, window: AddressWindow = AddressWindow(), sizeLimit: Int = defaultSizeLimit) {
        self.source = source
        self.window = window
        self.sizeLimit = sizeLimit
    }

    /// Parses a whole file held in memory.
    ///
    /// - Parameters:
    ///   - text: The Intel HEX text.
    ///   - source: The name used in messages.
    ///   - window: Addresses outside this window are dropped.
    /// - Returns: The image.
    /// - Throws: ``HexConverterError`` for the first problem found.
    package static func parse(
        _ text: [UInt8],
        source: String,
        window: AddressWindow = AddressWindow()
    ) throws(HexConverterError) -> HexImage {
        var parser = IntelHexParser(source: source, window: window)
        try parser.consume(text)
        return try parser.finish()
    }

    /// Reads the next piece of the input.
    ///
    /// - Parameter bytes: The next bytes of the text, split anywhere.
    /// - Throws: ``HexConverterError`` for the first problem found in a complete line.
    package mutating func consume(_ bytes: [UInt8]) throws(HexConverterError) {
        let result: Result<Void, HexConverterError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(HexConverterError) {
                try consume(buffer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Reads the next piece of the input.
    ///
    /// - Parameter chunk: The next bytes of the text, split anywhere.
    /// - Throws: ``HexConverterError`` for the first problem found in a complete line.
    package mutating func consume(_ chunk: UnsafeBufferPointer<UInt8>) throws(HexConverterError) {
        guard let base = chunk.baseAddress, !chunk.isEmpty else { return }
        sawAnyByte = true
        var lineStart = 0
        var index = 0
        let count = chunk.count
        let raw = UnsafeRawPointer(base)
        while index < count {
            // Skip eight bytes at a time while none of them is a line feed (the classic has-zero-byte test).
            while index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
                if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < count else { break }
            if base[index] == 0x0A {
                if partialLine.isEmpty {
                    try parseLine(UnsafeBufferPointer(start: base + lineStart, count: index - lineStart))
                } else {
                    partialLine.append(
                        contentsOf: UnsafeBufferPointer(start: base + lineStart, count: index - lineStart))
                    let pending = partialLine
                    partialLine.removeAll(keepingCapacity: true)
                    try pending.withUnsafeBufferPointer { (buffer) throws(HexConverterError) in try parseLine(buffer) }
                }
                lineStart = index + 1
            }
            index += 1
        }
        if lineStart < count {
            partialLine.append(contentsOf: UnsafeBufferPointer(start: base + lineStart, count: count - lineStart))
        }
    }

    /// Ends the input and returns the image.
    ///
    /// - Returns: The image: its data, regions and start address.
    /// - Throws: ``HexConverterError`` if the last line is bad or the end-of-file record is missing.
    package mutating func finish() throws(HexConverterError) -> HexImage {
        if !partialLine.isEmpty {
            let pending = partialLine
            partialLine.removeAll()
            try pending.withUnsafeBufferPointer { (buffer) throws(HexConverterError) in try parseLine(buffer) }
        }
        guard sawRecord else { throw .emptyInput(source: source) }
        guard endOfFileLine != nil else { throw .missingEndOfFile(source: source, lastLine: line) }
        return HexImage(memory: memory, startAddress: startAddress)
    }

    private mutating func parseLine(_ text: UnsafeBufferPointer<UInt8>) throws(HexConverterError) {
        line += 1
        var length = text.count
        if length > 0, text[length - 1] == 0x0D { length -= 1 }
        guard length > 0 else { return }
        if let endOfFileLine { throw .dataAfterEndOfFile(location(), endOfFileLine: endOfFileLine) }
        guard text[0] == 0x3A else { throw .missingRecordMark(location(column: 1)) }
        sawRecord = true
        let digits = length - 1
        let (byteCount, sum) = try decode(text, digits: digits)
        guard byteCount >= 5 else { throw .recordTooShort(location(), bytes: byteCount) }
        let dataLength = Int(record[0])
        guard dataLength == byteCount - 5 else {
            throw .byteCountMismatch(location(), declared: dataLength, actual: byteCount - 5)
        }
        guard sum == 0 else {
            let found = record[byteCount - 1]
            throw .checksumMismatch(location(), expected: found &- sum, found: found)
        }
        let offset = UInt32(record[1]) << 8 | UInt32(record[2])
        let type = record[3]
        switch type {
        case 0x00:
            try storeData(offset: offset, length: dataLength)
        case 0x01:
            guard dataLength == 0 else { throw .endOfFileWithData(location()) }
            endOfFileLine = line
        case 0x02:
            try requireLength(2, type: type, actual: dataLength)
            addressing = .segment(base: (UInt32(record[4]) << 8 | UInt32(record[5])) << 4)
        case 0x03:
            try requireLength(4, type: type, actual: dataLength)
            startAddress = .segment(
                codeSegment: UInt16(record[4]) << 8 | UInt16(record[5]),
                instructionPointer: UInt16(record[6]) << 8 | UInt16(record[7])
            )
        case 0x04:
            try requireLength(2, type: type, actual: dataLength)
            addressing = .linear(upper: (UInt32(record[4]) << 8 | UInt32(record[5])) << 16)
        case 0x05:
            try requireLength(4, type: type, actual: dataLength)
            startAddress = .linear(
                UInt32(record[4]) << 24 | UInt32(record[5]) << 16 | UInt32(record[6]) << 8 | UInt32(record[7])
            )
        default:
            throw .unknownRecordType(location(), type: type)
        }
    }

    /// Decodes the digits after `:` into `record`, returning the number of bytes and their sum.
    private mutating func decode(
        _ text: UnsafeBufferPointer<UInt8>,
        digits: Int
    ) throws(HexConverterError) -> (count: Int, sum: UInt8) {
        let pairs = digits / 2
        if pairs > record.count { record = [UInt8](repeating: 0, count: pairs) }
        var valid = true
        var sum: UInt8 = 0
        record.withUnsafeMutableBufferPointer { out in
            HexDigits.pairTable.withUnsafeBufferPointer { table in
                guard let textBase = text.baseAddress, let outBase = out.baseAddress else { return }
                var input = textBase + 1
                for i in 0..<pairs {
                    let value = table[Int(input[0]) << 8 | Int(input[1])]
                    if value > 0xFF {
                        valid = false
                        return
                    }
                    outBase[i] = UInt8(truncatingIfNeeded: value)
                    sum &+= UInt8(truncatingIfNeeded: value)
                    input += 2
                }
            }
        }
        if !valid || digits & 1 == 1 {
            // Find the exact column of the first bad character, the slow way: this is the error path.
            for column in 1...digits where HexDigits.table[Int(text[column])] > 0x0F {
                throw .invalidCharacter(location(column: column + 1), character: text[column])
            }
        }
        guard digits & 1 == 0 else { throw .oddDigitCount(location(), digits: digits) }
        return (pairs, sum)
    }

    private func requireLength(_ expected: Int, type: UInt8, actual: Int) throws(HexConverterError) {
        guard actual == expected else {
            throw .wrongRecordLength(location(), type: type, expected: expected, actual: actual)
        }
    }

    private mutating func storeData(offset: UInt32, length: Int) throws(HexConverterError) {
        guard length > 0 else { return }
        switch addressing {
        case .linear(let upper):
            let start = UInt64(upper) + UInt64(offset)
            guard start + UInt64(length) <= 1 << 32 else {
                throw .addressOverflow(location(), address: start + UInt64(length) - 1)
            }
            try storePiece(address: start, recordIndex: 0, length: length)
        case .segment(let base):
            let firstLength = min(length, 0x1_0000 - Int(offset))
            try storePiece(address: UInt64(base + offset), recordIndex: 0, length: firstLength)
            if firstLength < length {
                try storePiece(address: UInt64(base), recordIndex: firstLength, length: length - firstLength)
            }
        }
    }

    /// Stores `record[4 + recordIndex ..< 4 + recordIndex + length]` at `address`, clipped to the window.
    private mutating func storePiece(address: UInt64, recordIndex: Int, length: Int) throws(HexConverterError) {
        let low = max(address, UInt64(window.start))
        let high = min(address + UInt64(length), window.end)
        guard low < high else { return }
        let start = UInt32(low)
        let count = Int(high - low)
        let skip = Int(low - address)
        if let bounds = memory.bounds {
            let spanLow = min(bounds.low, start)
            let spanHigh = max(bounds.high, start + UInt32(count - 1))
            if Int(spanHigh - spanLow) + 1 > sizeLimit {
                let incoming = HexRegion(start: start, end: start + UInt32(count - 1))
                let (lowRegion, highRegion) =
                    start < bounds.low
                    ? (incoming, memory.region(containing: bounds.high))
                    : (memory.region(containing: bounds.low), incoming)
                throw .imageTooLarge(source: source, low: lowRegion, high: highRegion, limit: sizeLimit)
            }
        }
        let conflict = record.withUnsafeBufferPointer { buffer in
            memory.store(UnsafeBufferPointer(rebasing: buffer[(4 + recordIndex + skip)...].prefix(count)), at: start)
        }
        if let conflict {
            throw .conflictingData(
                location(),
                firstLine: log.firstLine(writing: conflict.address) ?? line,
                address: conflict.address,
                first: conflict.existing,
                second: conflict.incoming
            )
        }
        log.append(address: start, length: count, line: line)
    }

    private func location(column: Int? = nil) -> HexLocation {
        HexLocation(source: source, line: line, column: column)
    }
}

/// The value of each ASCII hex digit, and 0xFF for every other byte.
enum HexDigits {
    static let table: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 0x30...0x39: UInt8(byte - 0x30)
        case 0x41...0x46: UInt8(byte - 0x41 + 10)
        case 0x61...0x66: UInt8(byte - 0x61 + 10)
        default: 0xFF
        }
    }

    /// The byte two ASCII hex digits make, indexed by `first << 8 | second`; 0x100 where either is not a digit.
    static let pairTable: [UInt16] = (0..<65536).map { (index: Int) -> UInt16 in
        let high = table[index >> 8]
        let low = table[index & 0xFF]
        return high > 0x0F || low > 0x0F ? 0x100 : UInt16(high) << 4 | UInt16(low)
    }
}

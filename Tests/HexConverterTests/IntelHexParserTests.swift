import HexConverter
import TestSupport
import Testing

private typealias R = HexRecords

private func parse(_ text: String, window: AddressWindow = AddressWindow()) throws(HexConverterError) -> HexImage {
    try IntelHexParser.parse(Array(text.utf8), source: "t.hex", window: window)
}

private func at(_ line: Int, _ column: Int? = nil) -> HexLocation {
    HexLocation(source: "t.hex", line: line, column: column)
}

@Suite struct IntelHexParserAcceptanceTests {
    @Test("reads data records into a binary from the lowest to the highest address")
    func simpleImage() throws {
        let image = try parse([R.data(0x0010, [1, 2, 3]), R.data(0x0013, [4]), R.endOfFile].joined(separator: "\n"))
        #expect(image.binary() == [1, 2, 3, 4])
        #expect(image.regions == [HexRegion(start: 0x10, end: 0x13)])
        #expect(image.lowestAddress == 0x10)
        #expect(image.startAddress == nil)
    }

    @Test("accepts lowercase digits, CRLF, blank lines and a missing final newline")
    func lenientLayout() throws {
        let text =
            "\r\n" + R.line(type: 0, offset: 0x100, data: [0xAB, 0xCD], lowercase: true) + "\r\n\n\r\n"
            + R.endOfFile.lowercased()
        let image = try parse(text)
        #expect(image.binary() == [0xAB, 0xCD])
    }

    @Test("accepts records in any order and fills gaps with 0xFF or --fill")
    func anyOrderAndGaps() throws {
        let text = [R.data(0x0008, [8, 9]), R.data(0x0000, [0, 1]), R.endOfFile].joined(separator: "\n")
        let image = try parse(text)
        #expect(image.binary() == [0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 8, 9])
        #expect(image.binary(fill: 0x00) == [0, 1, 0, 0, 0, 0, 0, 0, 8, 9])
        #expect(image.regions == [HexRegion(start: 0, end: 1), HexRegion(start: 8, end: 9)])
    }

    @Test("accepts a 255-byte record")
    func longestRecord() throws {
        let data = (0..<255).map { UInt8($0) }
        let image = try parse([R.data(0x1000, data), R.endOfFile].joined(separator: "\n"))
        #expect(image.binary() == data)
    }

    @Test("a linear-mode record running past offset 0xFFFF continues into the next 64 KiB")
    func linearRunsPastSegment() throws {
        let text = [R.linear(0x0002), R.data(0xFFFE, [1, 2, 3, 4]), R.endOfFile].joined(separator: "\n")
        let image = try parse(text)
        #expect(image.regions == [HexRegion(start: 0x2_FFFE, end: 0x3_0001)])
        #expect(image.binary() == [1, 2, 3, 4])
    }

    @Test("a segment-mode record wraps within its 64 KiB segment, as the Intel specification says")
    func segmentWraps() throws {
        let text = [R.segment(0x1000), R.data(0xFFFE, [1, 2, 3, 4]), R.endOfFile].joined(separator: "\n")
        let image = try parse(text)
        #expect(
            image.regions == [HexRegion(start: 0x1_0000, end: 0x1_0001), HexRegion(start: 0x1_FFFE, end: 0x1_FFFF)])
    }

    @Test("segment (02) addressing multiplies by 16, linear (04) by 65536, and the later record wins")
    func addressingModes() throws {
        let text = [
            R.segment(0x1234), R.data(0x0001, [0xAA]),
            R.linear(0x0002), R.data(0x0000, [0xBB]),
            R.endOfFile,
        ].joined(separator: "\n")
        let image = try parse(text)
        #expect(image.regions == [HexRegion(start: 0x12341, end: 0x12341), HexRegion(start: 0x20000, end: 0x20000)])
    }

    @Test("identical bytes written twice are accepted")
    func identicalOverlap() throws {
        let text = [R.data(0, [1, 2, 3]), R.data(1, [2, 3, 4]), R.endOfFile].joined(separator: "\n")
        #expect(try parse(text).binary() == [1, 2, 3, 4])
    }

    @Test(
        "start address records are metadata, not data",
        arguments: [
            (R.line(type: 5, data: [0x00, 0x02, 0x62, 0xD1]), StartAddress.linear(0x0002_62D1)),
            (
                R.line(type: 3, data: [0x12, 0x34, 0x56, 0x78]),
                .segment(codeSegment: 0x1234, instructionPointer: 0x5678)
            ),
        ])
    func startAddress(record: String, expected: StartAddress) throws {
        let image = try parse([R.data(0, [7]), record, R.endOfFile].joined(separator: "\n"))
        #expect(image.startAddress == expected)
        #expect(image.binary() == [7])
    }

    @Test("data outside the window is dropped while reading")
    func window() throws {
        let text = [
            R.data(0x0FFE, [1, 2, 3, 4]), R.linear(0x1000), R.data(0x1000, [9, 9, 9, 9]), R.endOfFile,
        ].joined(separator: "\n")
        let image = try parse(text, window: .nordic)
        #expect(image.binary() == [3, 4])
        #expect(image.lowestAddress == 0x1000)
        #expect(image.binarySize(alignment: 4) == 4)
        #expect(image.binary(alignment: 4) == [3, 4, 0xFF, 0xFF])
    }

    @Test("input split at every possible point parses the same")
    func chunking() throws {
        let text = Array(
            ([R.data(0, [1, 2, 3, 4]), R.data(4, [5, 6]), R.endOfFile].joined(separator: "\r\n")).utf8
        )
        for split in 0...text.count {
            var parser = IntelHexParser(source: "t.hex")
            try parser.consume(Array(text[..<split]))
            try parser.consume(Array(text[split...]))
            #expect(try parser.finish().binary() == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test("forEachChunk hands out 64 KiB pieces that add up to the image")
    func chunkedOutput() throws {
        var lines: [String] = []
        for upper in UInt16(0)..<3 {
            lines.append(R.linear(upper))
            lines.append(R.data(0x8000, [UInt8(upper)]))
        }
        lines.append(R.endOfFile)
        let image = try parse(lines.joined(separator: "\n"))
        var sizes: [Int] = []
        var total: [UInt8] = []
        image.forEachChunk(fill: 0x00) { chunk in
            sizes.append(chunk.count)
            total += chunk
        }
        #expect(sizes == [0x8000, 0x10000, 0x8001])
        #expect(total.count == 0x2_0001)
        #expect(total[0] == 0 && total[0x1_0000] == 1 && total[0x2_0000] == 2 && total[1] == 0x00)
    }
}

@Suite struct IntelHexParserRejectionTests {
    @Test(
        "every malformed input is a typed error naming the line",
        arguments: [
            ("01000000AAFF\n" + R.endOfFile, HexConverterError.missingRecordMark(at(1, 1))),
            (" " + R.endOfFile, .missingRecordMark(at(1, 1))),
            (":0100000GAA00\n", .invalidCharacter(at(1, 9), character: 0x47)),
            (":01000000AA5\n", .oddDigitCount(at(1), digits: 11)),
            (":0100\n", .recordTooShort(at(1), bytes: 2)),
            (
                R.line(type: 0, data: [1, 2]).replacingFirst("02", with: "03") + "\n",
                .byteCountMismatch(at(1), declared: 3, actual: 2)
            ),
            (":03000000AABB00\n", .byteCountMismatch(at(1), declared: 3, actual: 2)),
            (
                R.line(type: 0, data: [0xAA], checksum: 0x3C) + "\n",
                .checksumMismatch(at(1), expected: 0x55, found: 0x3C)
            ),
            (R.line(type: 6) + "\n", .unknownRecordType(at(1), type: 6)),
            (R.line(type: 2, data: [1]) + "\n", .wrongRecordLength(at(1), type: 2, expected: 2, actual: 1)),
            (R.line(type: 4, data: [1, 2, 3]) + "\n", .wrongRecordLength(at(1), type: 4, expected: 2, actual: 3)),
            (R.line(type: 3, data: [1, 2]) + "\n", .wrongRecordLength(at(1), type: 3, expected: 4, actual: 2)),
            (
                R.line(type: 5, data: [1, 2, 3, 4, 5]) + "\n",
                .wrongRecordLength(at(1), type: 5, expected: 4, actual: 5)
            ),
            (R.line(type: 1, data: [0]) + "\n", .endOfFileWithData(at(1))),
            (R.endOfFile + "\n\n" + R.data(0, [1]) + "\n", .dataAfterEndOfFile(at(3), endOfFileLine: 1)),
            (R.data(0, [1]) + "\n", .missingEndOfFile(source: "t.hex", lastLine: 1)),
            ("", .emptyInput(source: "t.hex")),
            ("\n\r\n\n", .emptyInput(source: "t.hex")),
            (
                [R.data(0x10, [1, 2, 3]), "", R.data(0x12, [7]), R.endOfFile].joined(separator: "\n"),
                .conflictingData(at(3), firstLine: 1, address: 0x12, first: 3, second: 7)
            ),
            (
                [R.linear(0xFFFF), R.data(0xFFFE, [1, 2, 3]), R.endOfFile].joined(separator: "\n"),
                .addressOverflow(at(2), address: 0x1_0000_0000)
            ),
        ])
    func rejects(text: String, expected: HexConverterError) {
        #expect(throws: expected) { try parse(text) }
    }

    @Test("a conflict names the line that first wrote the byte, inside a long run of records")
    func conflictInRun() {
        var lines = [R.linear(0x0002)]
        for index in 0..<100 { lines.append(R.data(UInt16(index * 16), [UInt8](repeating: UInt8(index), count: 16))) }
        lines.append(R.data(0x0325, [0xEE]))
        lines.append(R.endOfFile)
        let expected = HexConverterError.conflictingData(
            at(102), firstLine: 52, address: 0x2_0325, first: 50, second: 0xEE)
        #expect(throws: expected) { try parse(lines.joined(separator: "\n")) }
    }

    @Test("an image over 64 MiB names its two regions and suggests a crop")
    func imageTooLarge() throws {
        let text = [
            R.linear(0x0002), R.data(0x6000, [1, 2, 3, 4]), R.data(0x6004, [5, 6, 7, 8]),
            R.linear(0x1000), R.data(0x1014, [0xFF, 0xFF, 0xFF, 0xFE]),
            R.endOfFile,
        ].joined(separator: "\n")
        let expected = HexConverterError.imageTooLarge(
            source: "t.hex",
            low: HexRegion(start: 0x2_6000, end: 0x2_6007),
            high: HexRegion(start: 0x1000_1014, end: 0x1000_1017),
            limit: 64 << 20
        )
        #expect(throws: expected) { try parse(text) }
        #expect(
            expected.description
                == "t.hex: data at 0x00026000–0x00026007 and at 0x10001014–0x10001017 would make a binary image "
                + "over 64 MiB; crop it at 0x10000000 (BinaryImageOptions.end) or drop the MBR and UICR regions "
                + "(BinaryImageOptions.followsNordicTools)"
        )
        #expect(try parse(text, window: AddressWindow(end: 0x1000_0000)).binary() == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test(
        "messages are one line naming the file, line and column",
        arguments: [
            (
                HexConverterError.checksumMismatch(at(214), expected: 0x3D, found: 0x3C),
                "t.hex:214: record checksum is 0x3C, expected 0x3D"
            ),
            (.invalidCharacter(at(3, 9), character: 0x20), "t.hex:3:9: ' ' is not a hexadecimal digit"),
            (.invalidCharacter(at(3, 9), character: 0x07), "t.hex:3:9: byte 0x07 is not a hexadecimal digit"),
            (
                .conflictingData(at(9), firstLine: 2, address: 0x26000, first: 1, second: 2),
                "t.hex:9: byte at 0x00026000 is 0x02 here but 0x01 on line 2"
            ),
            (
                .missingEndOfFile(source: "t.hex", lastLine: 7),
                "t.hex:7: input ends without an end-of-file record (:00000001FF)"
            ),
        ])
    func messages(error: HexConverterError, text: String) {
        #expect(error.description == text)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}

@Suite struct IntelHexParserFullPageTests {
    /// 4096 records of 16 bytes fill the page at 0x20000 completely, which frees its bitmap.
    private func fullPage(plus extra: [String]) -> String {
        var lines = [R.linear(0x0002)]
        for index in 0..<4096 {
            lines.append(R.data(UInt16(index * 16), [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 16)))
        }
        return (lines + extra + [R.endOfFile]).joined(separator: "\n")
    }

    @Test("a full page still accepts identical bytes and refuses different ones, naming the first line")
    func fullPageOverlap() throws {
        let image = try parse(fullPage(plus: [R.data(0x0010, [1, 1])]))
        #expect(image.regions == [HexRegion(start: 0x2_0000, end: 0x2_FFFF)])
        let expected = HexConverterError.conflictingData(at(4098), firstLine: 3, address: 0x2_0011, first: 1, second: 9)
        #expect(throws: expected) { try parse(fullPage(plus: [R.data(0x0010, [1, 9])])) }
    }

    @Test("regions run across full and partial pages")
    func regionsAcrossPages() throws {
        let image = try parse(fullPage(plus: [R.linear(0x0003), R.data(0x0000, [5, 6]), R.data(0x0100, [7])]))
        #expect(
            image.regions == [HexRegion(start: 0x2_0000, end: 0x3_0001), HexRegion(start: 0x3_0100, end: 0x3_0100)])
        #expect(image.binarySize() == 0x1_0101)
    }
}

import HexConverter
import TestSupport
import Testing

@Suite struct IntelHexWriterTests {
    @Test("writes 16-byte records, an 04 record per 64 KiB, and the end-of-file record")
    func layout() throws {
        let bytes = (0..<20).map { UInt8($0) }
        let text = String(decoding: try IntelHexWriter.encode(bytes, baseAddress: 0x2_FFF8), as: UTF8.self)
        #expect(
            text == """
                :020000040002F8
                :08FFF8000001020304050607E5
                :020000040003F7
                :0C00000008090A0B0C0D0E0F1011121352
                :00000001FF

                """
        )
    }

    @Test("round-trips random images through the parser", arguments: [UInt64(1), 2, 3, 4, 5])
    func roundTrip(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...200_000, using: &random)
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        let base = UInt32.random(in: 0...0x0FFF_FFFF, using: &random)
        var writer = IntelHexWriter(baseAddress: base, recordSize: Int.random(in: 1...255, using: &random))
        var text: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let piece = min(bytes.count - offset, Int.random(in: 1...70_000, using: &random))
            text += try writer.append(bytes[offset..<(offset + piece)])
            offset += piece
        }
        text += writer.finish()
        let image = try IntelHexParser.parse(text, source: "rt.hex")
        #expect(image.lowestAddress == base)
        #expect(image.binary() == bytes)
    }

    @Test("refuses an image that runs past 4 GiB")
    func overflow() {
        #expect(
            throws: HexConverterError.addressOverflow(HexLocation(source: "<binary>", line: 0), address: 0x1_0000_0001)
        ) {
            try IntelHexWriter.encode([1, 2, 3], baseAddress: 0xFFFF_FFFF)
        }
    }
}

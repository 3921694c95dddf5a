import Foundation
import HexConverter
import TestSupport
import Testing

/// A random Intel HEX file: segments with gaps, random record sizes and orders, 02 or 04 addressing.
struct RandomHexFile {
    var text: [UInt8]
    /// The bytes that should come out: from the lowest to the highest address, gaps 0xFF.
    var expected: [UInt8]

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let useSegments = Bool.random(using: &random)
        let limit: UInt32 = useSegments ? 0xF_0000 : 0x0400_0000
        var segments: [(UInt32, [UInt8])] = []
        var cursor = UInt32.random(in: 0...0x4_0000, using: &random)
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let length = Int.random(in: 1...20_000, using: &random)
            guard cursor + UInt32(length) < limit else { break }
            segments.append((cursor, (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }))
            cursor += UInt32(length) + UInt32.random(in: 1...70_000, using: &random)
        }
        var records: [(UInt32, [UInt8])] = []
        for (start, bytes) in segments {
            var offset = 0
            while offset < bytes.count {
                var size = min(bytes.count - offset, Int.random(in: 1...255, using: &random))
                let address = start + UInt32(offset)
                if useSegments {
                    // In 02 mode a record must not cross its segment's 64 KiB boundary: readers disagree there.
                    size = min(size, 0x1_0000 - Int(address & 0xFFFF))
                }
                records.append((address, Array(bytes[offset..<(offset + size)])))
                offset += size
            }
        }
        if Bool.random(using: &random) { records.shuffle(using: &random) }
        var lines: [String] = []
        var current: UInt32?
        for (address, bytes) in records {
            let upper = address & 0xFFFF_0000
            if current != upper {
                lines.append(
                    useSegments ? HexRecords.segment(UInt16(upper >> 4)) : HexRecords.linear(UInt16(upper >> 16)))
                current = upper
            }
            lines.append(HexRecords.data(UInt16(address & 0xFFFF), bytes))
        }
        lines.append(HexRecords.endOfFile)
        text = HexRecords.file(lines, lineEnd: Bool.random(using: &random) ? "\r\n" : "\n")
        let low = segments[0].0
        let high = segments[segments.count - 1].0 + UInt32(segments[segments.count - 1].1.count)
        expected = [UInt8](repeating: 0xFF, count: Int(high - low))
        for (start, bytes) in segments {
            expected.replaceSubrange(Int(start - low)..<(Int(start - low) + bytes.count), with: bytes)
        }
    }
}

@Suite struct DifferentialTests {
    static let objcopy = TestPaths.which("objcopy")
    static let srecCat = TestPaths.which("srec_cat")

    @Test(
        "agrees byte for byte with objcopy --gap-fill 0xff on random files",
        .enabled(if: objcopy != nil, "objcopy (Debian binutils) is not installed"),
        arguments: UInt64(1)...40
    )
    func objcopyAgrees(seed: UInt64) throws {
        let file = RandomHexFile(seed: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("in.hex", file.text)
        let result = ProcessRunner().run(
            try #require(Self.objcopy),
            ["-I", "ihex", "-O", "binary", "--gap-fill", "0xff", input, directory.file("o.bin")]
        )
        #expect(result.status == 0, "\(result.stderrText)")
        let ours = try IntelHexParser.parse(file.text, source: "in.hex").binary()
        #expect(ours == file.expected)
        #expect(ours == (try directory.read("o.bin")))
    }

    @Test(
        "agrees byte for byte with srec_cat on random files",
        .enabled(if: srecCat != nil, "srec_cat (Debian srecord) is not installed"),
        arguments: UInt64(101)...140
    )
    func srecCatAgrees(seed: UInt64) throws {
        let file = RandomHexFile(seed: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("in.hex", file.text)
        let image = try IntelHexParser.parse(file.text, source: "in.hex")
        let low = try #require(image.lowestAddress)
        let end = UInt64(low) + UInt64(image.binarySize())
        // srec_cat: fill the span with 0xFF, then move it to offset 0 for the binary output.
        let arguments = [
            input, "-intel", "-fill", "0xFF", String(low), String(end), "-offset", "-" + String(low),
            "-o", directory.file("s.bin"), "-binary",
        ]
        let result = ProcessRunner().run(try #require(Self.srecCat), arguments)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(image.binary() == file.expected)
        #expect(image.binary() == (try directory.read("s.bin")))
    }
}

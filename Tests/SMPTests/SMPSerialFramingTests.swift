import Foundation
import SMP
import TestSupport
import Testing

@Suite struct SMPSerialFramingTests {
    struct Vector: Decodable {
        var frame: String
        var lineLength: Int
        var stream: String

        enum CodingKeys: String, CodingKey {
            case frame
            case lineLength = "line_length"
            case stream
        }
    }

    struct VectorFile: Decodable {
        var generator: String
        var vectors: [Vector]
    }

    static func vectors() throws -> [Vector] {
        let url = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/smp-serial/smp-packet-encode.json")
        return try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url)).vectors
    }

    @Test("decodes every line stream smp.packet.encode wrote (committed vectors), at every line length")
    func decodesOracleStreams() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 45)
        for vector in vectors {
            var decoder = SMPSerialDecoder()
            let events = decoder.receive(bytes(hex: vector.stream))
            #expect(
                events == [.frame(bytes(hex: vector.frame))], "\(vector.frame.prefix(16))… at \(vector.lineLength)")
        }
    }

    @Test("encodes as Zephyr's mcumgr_serial_tx_pkt: the smp documentation's vector, and lines of at most 127 bytes")
    func encodes() throws {
        // smp.packet.encode's docstring: b'\x06\tAA9IZWxsbywgd29ybGQhet4=\n'; a one-line packet is laid out alike.
        #expect(
            SMPSerialFraming.lines(for: Array("Hello, world!".utf8)) == [
                [0x06, 0x09] + Array("AA9IZWxsbywgd29ybGQhet4=\n".utf8)
            ])
        for vector in try Self.vectors() where vector.lineLength == 127 {
            let frame = bytes(hex: vector.frame)
            let lines = SMPSerialFraming.lines(for: frame)
            #expect(lines.allSatisfy { $0.count <= 127 && $0.last == 0x0A })
            #expect(lines.first?.starts(with: [0x06, 0x09]) == true)
            #expect(lines.dropFirst().allSatisfy { $0.starts(with: [0x04, 0x14]) })
            var decoder = SMPSerialDecoder()
            #expect(decoder.receive(lines.joined()) == [.frame(frame)])
            // Zephyr's budget: 93 raw bytes in the first line, 90 in the others, the CRC never split.
            let raw = frame.count + 4
            let expectedLines = raw <= 93 ? 1 : 1 + (raw - 93 + 89) / 90
            #expect(lines.count == expectedLines || lines.count == expectedLines + 1, "\(frame.count) bytes")
        }
    }

    @Test("the CRC never straddles two lines")
    func crcStaysWhole() {
        // 93 raw bytes fit the first line: 2 length + 89 frame bytes + 2 CRC; one more frame byte moves the CRC and the
        // last frame byte to a second line.
        let fits = SMPSerialFraming.lines(for: [UInt8](repeating: 7, count: 89))
        #expect(fits.count == 1 && fits[0].count == 127)
        let spills = SMPSerialFraming.lines(for: [UInt8](repeating: 7, count: 90))
        #expect(spills.count == 2)
        // The first line keeps whole triples (3 + 87 bytes); the second carries the last 2 frame bytes and the CRC: the
        // marker, two quads, the newline.
        #expect(spills[0].count == 2 + 120 + 1)
        #expect(spills[1].count == 11 && spills[1].starts(with: [0x04, 0x14]))
    }

    @Test("log lines between packets come out as console lines; a packet split across reads is reassembled")
    func interleaved() {
        let frame =
            bytes(hex: "0b000009000109 01".replacingOccurrences(of: " ", with: "")) + bytes(hex: "bf636f6666190200ff")
        var stream = Array("[00:00:01.000] <inf> app: booting\r\n".utf8)
        stream += SMPSerialFraming.lines(for: frame, maximumLineLength: 16).joined()
        stream += Array("uart:~$ \n".utf8)
        var decoder = SMPSerialDecoder()
        var events: [SMPSerialDecoder.Event] = []
        for chunk in stride(from: 0, to: stream.count, by: 5) {
            events += decoder.receive(stream[chunk..<min(stream.count, chunk + 5)])
        }
        #expect(
            events == [
                .consoleLine(Array("[00:00:01.000] <inf> app: booting".utf8)), .frame(frame),
                .consoleLine(Array("uart:~$ ".utf8)),
            ])
    }

    /// Answers as Zephyr 2.7.1 and older write them, and the same frames as Zephyr 3.0 and later write them.
    ///
    /// Before Zephyr PR #40127, `mcumgr_serial_tx_pkt`'s length field counts the frame without its CRC (Zephyr issue
    /// #39546), each quad encodes its own 1 to 3 raw bytes, and the CRC goes in the line of the frame's last bytes.
    /// Laid out by hand from that function's source (Zephyr v2.5.0 `subsys/mgmt/serial_util.c`); the same frame
    /// follows in the current form, whose length counts the CRC.
    static let lengthForms: [(name: String, frame: String, pre30: String, current: String)] = [
        (
            // OS echo answer `{"r": "hello"}` (tinycbor's definite map), seq 0x42: one line, length 0x0011.
            "echo answer", "0300000900004200a161726568656c6c6f", "0609" + hexOf("ABEDAAAJAABCAKFhcmVoZWxsb0e1\n"),
            "0609" + hexOf("ABMDAAAJAABCAKFhcmVoZWxsb0e1\n")
        ),
        (
            // Image state answer, 108 bytes: 91 frame bytes in the first line, then the last 17 and the CRC 0x5627,
            // its low byte in a quad of its own (`Jw==`).
            "image state answer",
            "0100006400010700a166696d6167657381a664736c6f74006776657273696f6e67302e302e3132336468617368582000010203"
                + "0405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f68626f6f7461626c65f566616374697665f569636f"
                + "6e6669726d6564f5",
            "0609"
                + hexOf(
                    "AGwBAABkAAEHAKFmaW1hZ2VzgaZkc2xvdABndmVyc2lvbmcwLjAuMTIzZGhhc2hYIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFx"
                        + "gZGhscHR4faGJvb3RhYmxl9WZh\n") + "0414" + hexOf("Y3RpdmX1aWNvbmZpcm1lZPVWJw==\n"),
            "0609"
                + hexOf(
                    "AG4BAABkAAEHAKFmaW1hZ2VzgaZkc2xvdABndmVyc2lvbmcwLjAuMTIzZGhhc2hYIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFx"
                        + "gZGhscHR4faGJvb3RhYmxl9WZh\n") + "0414" + hexOf("Y3RpdmX1aWNvbmZpcm1lZPVWJw==\n")
        ),
    ]

    @Test(
        "accepts the length field with the CRC (Zephyr 3.0+) and without it (Zephyr 2.7.1 and older), byte for byte",
        arguments: lengthForms.map { $0.name })
    func lengthFieldForms(name: String) throws {
        let vector = try #require(Self.lengthForms.first { $0.name == name })
        let frame = bytes(hex: vector.frame)
        var decoder = SMPSerialDecoder()
        #expect(decoder.receive(bytes(hex: vector.pre30)) == [.frame(frame)])
        #expect(decoder.receive(bytes(hex: vector.current)) == [.frame(frame)])
        // The current form is what the encoder writes.
        #expect(Array(SMPSerialFraming.lines(for: frame).joined()) == bytes(hex: vector.current))
        // Byte by byte, with a log line between the two forms.
        var slow = SMPSerialDecoder()
        var events: [SMPSerialDecoder.Event] = []
        for byte in bytes(hex: vector.pre30) + Array("log\n".utf8) + bytes(hex: vector.current) {
            events += slow.receive([byte])
        }
        #expect(events == [.frame(frame), .consoleLine(Array("log".utf8)), .frame(frame)])
    }

    @Test("a packet one byte past its declared length, or two past it with a bad CRC, is still dropped")
    func neitherLengthForm() {
        // "Hello, world!" (13 bytes) and its CRC 0x7ADE, declared as 12 bytes: 15 arrive, neither 12 nor 14.
        var decoder = SMPSerialDecoder()
        #expect(
            decoder.receive([0x06, 0x09] + Array("AAxIZWxsbywgd29ybGQhet4=\n".utf8)) == [
                .discarded(.badLength(declared: 12, received: 15))
            ])
        // Declared as 13 (the pre-3.0 form) with a CRC that does not match.
        let events = decoder.receive([0x06, 0x09] + Array("AA1IZWxsbywgd29ybGQhet8=\n".utf8))
        guard case .discarded(.crcMismatch(let received, let computed))? = events.first else {
            Issue.record("expected a CRC mismatch, got \(events)")
            return
        }
        #expect(received == 0x7ADF && computed == 0x7ADE)
    }

    static let broken: [(String, SMPSerialError)] = [
        ("0609AA9IZWxsbywgd29ybGQhet4%\n", .badBase64),
        ("0609AA9IZWxtbywgd29ybGQhet4=\n", .crcMismatch(received: 0x7ADE, computed: 0x7ADE)),
        // Non-zero bits under the padding: not canonical base64.
        ("0609AA9IZWxsbywgd29ybGQhet5=\n", .badBase64),
        ("0414ZWxs\n", .continuationWithoutStart),
        ("0609AA5IZWxsbywgd29ybGQhet4=\n", .badLength(declared: 0x0E, received: 15)),
    ]

    @Test("broken packets are dropped with the reason, and the stream goes on", arguments: broken)
    func brokenPackets(text: String, error: SMPSerialError) {
        let line = bytes(hex: String(text.prefix(4))) + Array(text.dropFirst(4).utf8)
        var decoder = SMPSerialDecoder()
        let events = decoder.receive(line)
        guard case .discarded(let reason)? = events.first, events.count == 1 else {
            Issue.record("expected one discarded packet, got \(events)")
            return
        }
        if case .crcMismatch = error {
            guard case .crcMismatch(let received, let computed) = reason else {
                Issue.record("expected a CRC mismatch, got \(reason)")
                return
            }
            #expect(received != computed)
        } else {
            #expect(reason == error)
        }
        // The next good packet still decodes.
        #expect(decoder.receive(SMPSerialFraming.lines(for: [1, 2, 3]).joined()) == [.frame([1, 2, 3])])
    }

    @Test("a line without an end is dropped at the limit, bounding memory")
    func overlongLine() {
        var decoder = SMPSerialDecoder(maximumLineLength: 64)
        #expect(
            decoder.receive([UInt8](repeating: 0x41, count: 1000) + [0x0A]) == [.discarded(.lineTooLong(limit: 64))])
    }
}

/// The hex of a string's UTF-8 bytes.
private func hexOf(_ text: String) -> String {
    text.utf8.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

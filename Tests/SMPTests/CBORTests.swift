import SMP
import TestSupport
import Testing

@Suite struct CBORTests {
    /// RFC 8949 Appendix A vectors for the subset SMP uses (hex from the RFC's table).
    static let vectors: [(String, CBORValue)] = [
        ("00", .unsigned(0)),
        ("17", .unsigned(23)),
        ("1818", .unsigned(24)),
        ("1864", .unsigned(100)),
        ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .int(-1)),
        ("29", .int(-10)),
        ("3863", .int(-100)),
        ("3903e7", .int(-1000)),
        ("3bffffffffffffffff", .negative(UInt64.max)),
        ("40", .bytes([])),
        ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")),
        ("6161", .text("a")),
        ("6449455446", .text("IETF")),
        ("62c3bc", .text("\u{fc}")),
        ("f4", .bool(false)),
        ("f5", .bool(true)),
        ("f6", .null),
        ("80", .array([])),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("a0", .map([])),
        ("a201020304", .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])),
        (
            "a26161016162820203",
            .map([CBORMapEntry("a", .unsigned(1)), CBORMapEntry("b", .array([.unsigned(2), .unsigned(3)]))])
        ),
    ]

    @Test("encodes and decodes RFC 8949 appendix A vectors", arguments: vectors)
    func rfcVectors(hex: String, value: CBORValue) throws {
        #expect(CBOREncoder().encode(value) == bytes(hex: hex))
        #expect(try CBORDecoder().decode(bytes(hex: hex)) == value)
    }

    @Test("decodes indefinite-length maps and arrays as zcbor emits them")
    func indefiniteContainers() throws {
        // RFC 8949 appendix A: {_ "a": 1, "b": [_ 2, 3]}
        let value = try CBORDecoder().decode(bytes(hex: "bf61610161629f0203ffff"))
        #expect(
            value == .map([CBORMapEntry("a", .unsigned(1)), CBORMapEntry("b", .array([.unsigned(2), .unsigned(3)]))]))
        #expect(CBOREncoder(containerStyle: .indefinite).encode(value) == bytes(hex: "bf61610161629f0203ffff"))
        // An empty indefinite map, and a definite map inside an indefinite array.
        #expect(try CBORDecoder().decode(bytes(hex: "bfff")) == .map([]))
        #expect(try CBORDecoder().decode(bytes(hex: "9fa0ff")) == .array([.map([])]))
    }

    @Test("round-trips nested values in both container styles")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 20)
        for _ in 0..<200 {
            let value = Self.randomValue(depth: 0, using: &generator)
            for style in [CBOREncoder.ContainerStyle.definite, .indefinite] {
                let encoded = CBOREncoder(containerStyle: style).encode(value)
                #expect(try CBORDecoder().decode(encoded) == value)
            }
        }
    }

    static let malformed: [(String, CBORDecodingError)] = [
        ("", .truncated(offset: 0, needed: 1)),
        ("18", .truncated(offset: 1, needed: 1)),
        ("1a0000", .truncated(offset: 1, needed: 2)),
        ("4401", .truncated(offset: 1, needed: 3)),
        ("a1", .truncated(offset: 1, needed: 2)),
        ("a16161", .truncated(offset: 3, needed: 1)),
        ("bf6161", .truncated(offset: 3, needed: 1)),
        ("1c", .reservedAdditionalInformation(offset: 0, initialByte: 0x1C)),
        ("7e", .reservedAdditionalInformation(offset: 0, initialByte: 0x7E)),
        ("c100", .unsupported(offset: 0, initialByte: 0xC1, what: "a tag")),
        ("f93c00", .unsupported(offset: 0, initialByte: 0xF9, what: "a floating-point number")),
        ("f7", .unsupported(offset: 0, initialByte: 0xF7, what: "a simple value")),
        ("5f4101ff", .unsupported(offset: 0, initialByte: 0x5F, what: "a chunked string")),
        ("ff", .unexpectedBreak(offset: 0)),
        ("8200ff", .unexpectedBreak(offset: 2)),
        ("a1ff01", .unexpectedBreak(offset: 1)),
        ("bf6161ff", .mapKeyWithoutValue(offset: 3)),
        ("62c328", .invalidUTF8(offset: 0)),
        ("0000", .trailingBytes(offset: 1, count: 1)),
        ("5bffffffffffffffff", .lengthTooLarge(offset: 0, length: UInt64.max)),
        ("9b00000000ffffffff", .truncated(offset: 9, needed: 4_294_967_295)),
        // A map of 2^32 - 1 entries in 7 bytes: refused before anything is allocated.
        ("baffffffff00", .truncated(offset: 5, needed: 8_589_934_589)),
        // Duplicate keys, in zcbor's indefinite form and the definite one: {"off": 4229, "off": 0}.
        ("bf636f6666191085636f666600ff", .duplicateKey(offset: 8, key: .text("off"))),
        ("a2636f6666191085636f666600", .duplicateKey(offset: 8, key: .text("off"))),
        // A nested map repeating an integer key: {"err": {1: 0, 1: 2}}.
        ("a163657272a201000102", .duplicateKey(offset: 8, key: .unsigned(1))),
    ]

    @Test("rejects malformed input with the offset and reason", arguments: malformed)
    func strictErrors(hex: String, error: CBORDecodingError) {
        #expect(throws: error) { try CBORDecoder().decode(bytes(hex: hex)) }
    }

    @Test("limits nesting depth")
    func depth() {
        let deep = [UInt8](repeating: 0x81, count: 17) + [0x00]
        #expect(throws: CBORDecodingError.nestingTooDeep(offset: 16, limit: 16)) { try CBORDecoder().decode(deep) }
        #expect(throws: Never.self) { try CBORDecoder().decode(Array(deep.dropFirst())) }
    }

    @Test("error messages name the byte")
    func messages() {
        #expect(
            "\(CBORDecodingError.truncated(offset: 3, needed: 2))"
                == "CBOR ends inside an item at byte 3 (2 more bytes needed)")
        #expect(
            "\(CBORDecodingError.unsupported(offset: 0, initialByte: 0xC1, what: "a tag"))"
                == "CBOR byte 0: a tag (initial byte 0xC1) is not used by SMP")
        #expect(
            "\(CBORDecodingError.duplicateKey(offset: 8, key: .text("off")))"
                == "CBOR byte 8: map key 'off' appears twice in one map")
    }

    private static func randomValue(depth: Int, using generator: inout SeededGenerator) -> CBORValue {
        let choice = Int.random(in: 0..<(depth < 3 ? 9 : 7), using: &generator)
        switch choice {
        case 0:
            return .unsigned(
                UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator))
        case 1: return .negative(UInt64.random(in: 0...70_000, using: &generator))
        case 2:
            return .bytes(
                (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                })
        case 3: return .text(String(repeating: "é", count: Int.random(in: 0...30, using: &generator)))
        case 4: return .bool(Bool.random(using: &generator))
        case 5: return .null
        case 6: return .int(Int.random(in: -30...30, using: &generator))
        case 7:
            return .array(
                (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    randomValue(depth: depth + 1, using: &generator)
                })
        default:
            return .map(
                (0..<Int.random(in: 0...4, using: &generator)).map { index in
                    CBORMapEntry("k\(index)", randomValue(depth: depth + 1, using: &generator))
                })
        }
    }
}

import SMP
import TestSupport
import Testing

@Suite struct SMPFrameTests {
    @Test("encodes the header big-endian with op and version bits")
    func header() throws {
        let header = SMPHeader(
            operation: .write, version: .v2, flags: 0, length: 0x0102, group: 1, sequence: 7, command: 1)
        // 0x0A: op 2 (write) | version 1 << 3.
        #expect(header.encoded == bytes(hex: "0a00010200010701"))
        #expect(try SMPHeader(decoding: header.encoded) == header)
        #expect(try SMPHeader(decoding: bytes(hex: "0300000000000000")).operation == .writeResponse)
    }

    @Test("rejects unknown ops and versions, and short headers")
    func headerErrors() {
        #expect(throws: SMPFrameError.unknownOperation(4, header: bytes(hex: "0400000000000000"))) {
            try SMPHeader(decoding: bytes(hex: "0400000000000000"))
        }
        #expect(throws: SMPFrameError.unknownVersion(2, header: bytes(hex: "1000000000000000"))) {
            try SMPHeader(decoding: bytes(hex: "1000000000000000"))
        }
        #expect(throws: SMPFrameError.tooShort(received: [0, 0, 0])) { try SMPHeader(decoding: [0, 0, 0]) }
    }

    @Test("encodes requests with their group, id and body")
    func requests() throws {
        // Image state read, v2, seq 0: header 08 00 0001 0001 00 00, body a0.
        #expect(
            SMPRequest.readImageState.frame(sequence: 0, version: .v2).encoded()
                == bytes(hex: "080000010001 0000 a0".replacingOccurrences(of: " ", with: "")))
        // MCUmgr parameters: OS group (0), id 6, read.
        #expect(
            SMPRequest.parameters.frame(sequence: 3, version: .v1).encoded()
                == bytes(hex: "00000001000003 06 a0".replacingOccurrences(of: " ", with: "")))
        // Reset: OS group, id 5, write.
        #expect(SMPRequest.reset.frame(sequence: 4, version: .v1).encoded() == bytes(hex: "0200000100000405a0"))
        // Test by hash: {"hash": h'01', "confirm": false}.
        let test = SMPRequest.writeImageState(hash: [1], confirm: false).frame(sequence: 1, version: .v2).encoded()
        #expect(
            test
                == bytes(
                    hex: "0a000011000101 00 a2 6468617368 4101 67636f6e6669726d f4".replacingOccurrences(
                        of: " ", with: "")))
    }

    @Test("first upload chunk carries len and sha; the size formula matches the encoding")
    func uploadChunk() throws {
        let sha = [UInt8](repeating: 0xAB, count: 32)
        let first = ImageUploadChunk(offset: 0, data: [1, 2, 3], length: 1000, sha256: sha)
        let frame = SMPRequest.upload(first).frame(sequence: 9, version: .v2)
        let decoded = try SMPFrame(decoding: frame.encoded())
        #expect(decoded.header.group == 1 && decoded.header.command == 1 && decoded.header.operation == .write)
        #expect(decoded.body["len"] == .unsigned(1000))
        #expect(decoded.body["off"] == .unsigned(0))
        #expect(decoded.body["sha"] == .bytes(sha))
        #expect(decoded.body["data"] == .bytes([1, 2, 3]))
        for (length, offset, isFirst) in [
            (0, 0, true), (23, 0, true), (24, 100, false), (255, 70_000, false), (256, 0, true), (2000, 1 << 20, false),
        ] {
            let chunk = ImageUploadChunk(
                offset: offset, data: [UInt8](repeating: 0, count: length), length: isFirst ? 300_000 : nil,
                sha256: isFirst ? sha : nil)
            #expect(
                ImageUploadChunk.bodySize(dataLength: length, offset: offset, isFirst: isFirst, imageLength: 300_000)
                    == CBOREncoder().encode(chunk.body).count)
        }
    }

    @Test("decodes a zcbor (indefinite-length) answer and checks the declared length")
    func responseFrame() throws {
        // Write response, v2, group 1, seq 9, id 1, body {_ "off": 512}.
        let body = bytes(hex: "bf636f6666190200ff")
        let frame = try SMPFrame(
            decoding: bytes(hex: "0b000009000109 01".replacingOccurrences(of: " ", with: "")) + body)
        #expect(try ImageUploadResponse(body: frame.body) == ImageUploadResponse(offset: 512))
        #expect(throws: SMPFrameError.lengthMismatch(declared: 9, actual: 8)) {
            try SMPFrame(decoding: bytes(hex: "0b00000900010901") + body.dropLast())
        }
        #expect(throws: SMPFrameError.bodyNotAMap(found: "an integer")) {
            try SMPFrame(decoding: bytes(hex: "0b00000100010901") + [0x01])
        }
        #expect(throws: SMPFrameError.malformedBody(.truncated(offset: 1, needed: 2))) {
            try SMPFrame(decoding: bytes(hex: "0b00000100010901") + [0xA1])
        }
        #expect(SMPFrame.totalLength(ofFrameStartingWith: bytes(hex: "0b00000900010901")) == 17)
        #expect(SMPFrame.totalLength(ofFrameStartingWith: [0x0B]) == nil)
    }

    static let errorAnswers: [(String, SMPDeviceError?, String?)] = [
        // {"rc": 8}: an unknown command, both versions (smp.c).
        (
            "a16272630 8".replacingOccurrences(of: " ", with: ""), SMPDeviceError(source: .mcumgr, rc: 8),
            "rc 8 (MGMT_ERR_ENOTSUP: command not supported)"
        ),
        // {"err": {"group": 1, "rc": 28}} (v2).
        (
            "a163657272a26567726f7570016272631 81c".replacingOccurrences(of: " ", with: ""),
            SMPDeviceError(source: .group(1), rc: 28),
            "rc 28 (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already an image operation pending)"
        ),
        // {_ "err": {_ "group": 1, "rc": 33}} as zcbor writes it.
        (
            "bf63657272bf6567726f7570016272631821ffff", SMPDeviceError(source: .group(1), rc: 33),
            "rc 33 (IMG_MGMT_ERR_IMAGE_SETTING_TEST_TO_ACTIVE_DENIED: setting test to the active slot is not allowed)"
        ),
        // A group nrfloader has no names for.
        (
            "a163657272a26567726f757018406272630 3".replacingOccurrences(of: " ", with: ""),
            SMPDeviceError(source: .group(64), rc: 3), "rc 3 of group 64"
        ),
        // {"rc": 0, "off": 0}: success with the legacy rc.
        ("a262726300636f666600", nil, nil),
        ("a0", nil, nil),
    ]

    @Test("reads errors in both forms, with their names", arguments: errorAnswers)
    func errors(hex: String, expected: SMPDeviceError?, message: String?) throws {
        let body = try CBORDecoder().decode(bytes(hex: hex))
        let error = try SMPResponse.error(in: body)
        #expect(error == expected)
        #expect(error.map { "\($0)" } == message)
    }

    @Test("every image-group code has a name from img_mgmt.h", arguments: ImageManagementError.allCases)
    func imageNames(code: ImageManagementError) {
        #expect(code.name.hasPrefix("IMG_MGMT_ERR_"))
        #expect(!code.meaning.isEmpty)
    }

    @Test("a malformed error field is a protocol problem, not a success")
    func badErrorField() throws {
        let body = CBORValue.map([CBORMapEntry("rc", .text("eight"))])
        #expect(throws: SMPFrameError.badField(name: "rc", problem: "is a text string, not an integer")) {
            try SMPResponse.error(in: body)
        }
    }

    @Test("reads an image state answer and MCUmgr parameters")
    func typedAnswers() throws {
        let primary = ImageSlotState(
            slot: 0, version: "1.2.3", hash: [UInt8](repeating: 1, count: 32), isConfirmed: true, isActive: true)
        let secondary = ImageSlotState(
            slot: 1, version: "1.3.0.7", hash: [UInt8](repeating: 2, count: 32), isPending: true)
        let state = ImageStateResponse(slots: [primary, secondary])
        let encoded = CBOREncoder(containerStyle: .indefinite).encode(state.body)
        #expect(try ImageStateResponse(body: CBORDecoder().decode(encoded)) == state)
        #expect(state.slot(withHash: [UInt8](repeating: 2, count: 32))?.isPending == true)
        #expect(primary.flagsDescription == "confirmed active" || primary.flagsDescription == "active confirmed")
        // The frugal list omits false flags.
        let frugal = CBORValue.map([
            CBORMapEntry(
                "images",
                .array([
                    .map([
                        CBORMapEntry("slot", .int(1)), CBORMapEntry("version", .text("0.0.0")),
                        CBORMapEntry("hash", .bytes([9])),
                    ])
                ]))
        ])
        #expect(try ImageStateResponse(body: frugal).slots[0].isPending == false)
        let parameters = try MCUmgrParameters(
            body: CBORDecoder().decode(bytes(hex: "bf686275665f73697a6519017c696275665f636f756e7404ff")))
        #expect(parameters == MCUmgrParameters(bufferSize: 380, bufferCount: 4))
        #expect(throws: SMPFrameError.badField(name: "buf_count", problem: "is missing")) {
            try MCUmgrParameters(body: .map([CBORMapEntry("buf_size", .int(380))]))
        }
    }
}

import Checksums
import Testing

@testable import DFUPackage

@Suite struct SecureInitPacketTests {
    static let digest = (0..<32).map { UInt8($0) }

    /// The SDK 15 `hrs_application_s132` InitCommand (dfu-protocols.md §3.2), with a made-up hash.
    static let sdk15Command = InitCommand(
        fwVersion: 1, hwVersion: 52, sdReq: [0xA8, 0xCAFE], type: .application, sdSize: 0, blSize: 0,
        appSize: 44528, hash: InitCommand.Hash(hashType: .sha256, hash: digest), isDebug: true)

    @Test("encodes fields in number order with zero values present, as nrfutil does")
    func encodesLikeNrfutil() {
        let expected: [UInt8] =
            [
                0x08, 0x01,  // fw_version 1
                0x10, 0x34,  // hw_version 52
                0x1A, 0x05, 0xA8, 0x01, 0xFE, 0x95, 0x03,  // sd_req packed [0xA8, 0xCAFE]
                0x20, 0x00,  // type APPLICATION
                0x28, 0x00,  // sd_size 0
                0x30, 0x00,  // bl_size 0
                0x38, 0xF0, 0xDB, 0x02,  // app_size 44528
                0x42, 0x24, 0x08, 0x03, 0x12, 0x20,  // hash { SHA256, 32 bytes }
            ] + Self.digest + [0x48, 0x01]  // is_debug true
        #expect(Self.sdk15Command.encoded() == expected)
        #expect(expected.count == 0x3D)
        let packet = SecureInitPacket(initCommand: Self.sdk15Command).encoded()
        #expect(packet == [0x0A, 0x41, 0x08, 0x01, 0x12, 0x3D] + expected)
        let signed = SecureInitPacket(
            initCommand: Self.sdk15Command,
            signature: .init(type: .ecdsaP256SHA256, bytes: Array(repeating: 7, count: 64)))
        #expect(signed.encoded().prefix(5) == [0x12, 0x87, 0x01, 0x0A, 0x41])
        #expect(signed.encoded().count == 138)
    }

    static let packets: [SecureInitPacket] = [
        SecureInitPacket(initCommand: sdk15Command),
        SecureInitPacket(initCommand: sdk15Command, signature: .init(type: .ecdsaP256SHA256, bytes: digest + digest)),
        SecureInitPacket(initCommand: InitCommand()),
        SecureInitPacket(command: Command()),
        SecureInitPacket(command: Command(opCode: .reset, reset: .init(timeout: 0xFFFF_FFFF))),
        SecureInitPacket(
            initCommand: InitCommand(
                fwVersion: .max, hwVersion: 0, sdReq: [0, 1, 0xFFFF_FFFF], type: .softdeviceBootloader,
                sdSize: 151_016, blSize: 24_576, appSize: nil, hash: .init(hashType: .noHash, hash: []), isDebug: false,
                bootValidation: [
                    .init(type: .validateGeneratedCRC), .init(type: .validateECDSAP256SHA256, bytes: digest + digest),
                ]),
            signature: .init(type: .ed25519, bytes: [1, 2, 3])),
        SecureInitPacket(initCommand: InitCommand(type: .externalApplication, appSize: 4)),
    ]

    @Test("decoding inverts encoding", arguments: packets)
    func roundTrips(packet: SecureInitPacket) throws {
        let bytes = packet.encoded()
        #expect(try SecureInitPacket(decoding: bytes, file: "x.dat") == packet)
        if let initCommand = packet.command.initCommand {
            #expect(try InitCommand(decoding: initCommand.encoded(), file: "x.dat") == initCommand)
        }
    }

    @Test("accepts sd_req unpacked, one varint per element, and mixed with packed")
    func acceptsUnpackedSdReq() throws {
        let bytes: [UInt8] = [0x18, 0xA8, 0x01, 0x1A, 0x01, 0x05, 0x18, 0xFE, 0x95, 0x03]
        #expect(try InitCommand(decoding: bytes, file: "x.dat").sdReq == [0xA8, 5, 0xCAFE])
    }

    @Test("skips unknown fields of every wire type")
    func skipsUnknownFields() throws {
        let unknown: [UInt8] = [
            0x58, 0x96, 0x01,  // field 11, varint
            0x61, 1, 2, 3, 4, 5, 6, 7, 8,  // field 12, fixed64
            0x6A, 0x02, 0xAA, 0xBB,  // field 13, length-delimited
            0x75, 1, 2, 3, 4,  // field 14, fixed32
        ]
        let command = InitCommand(fwVersion: 7, appSize: 9)
        let initBytes = unknown + command.encoded() + unknown
        #expect(try InitCommand(decoding: initBytes, file: "x.dat") == command)
        let packet: [UInt8] = unknown + [0x0A, UInt8(initBytes.count + 2), 0x12, UInt8(initBytes.count)] + initBytes
        #expect(
            try SecureInitPacket(decoding: packet, file: "x.dat")
                == SecureInitPacket(command: Command(initCommand: command)))
    }

    @Test(
        "rejects malformed packets with the place of the problem",
        arguments: [
            (
                [0x0A, 0x05, 0x08, 0x01],
                DFUPackageError.invalidInitPacket(file: "x.dat", offset: 4, problem: .truncated)
            ),
            ([0x0A, 0x01, 0x08, 0x00], .invalidInitPacket(file: "x.dat", offset: 3, problem: .truncated)),
            ([0x0A, 0x02, 0x08, 0x80], .invalidInitPacket(file: "x.dat", offset: 4, problem: .truncated)),
            ([0x0A], .invalidInitPacket(file: "x.dat", offset: 1, problem: .truncated)),
            ([0x61, 1, 2, 3], .invalidInitPacket(file: "x.dat", offset: 4, problem: .truncated)),
            (
                [0x0A, 0x0C, 0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01],
                .invalidInitPacket(file: "x.dat", offset: 3, problem: .overlongVarint)
            ),
            (
                [0x0A, 0x0B, 0x08] + [UInt8](repeating: 0x80, count: 9) + [0x02],
                .invalidInitPacket(file: "x.dat", offset: 3, problem: .overlongVarint)
            ),
            (
                [0x0A, 0x08, 0x12, 0x06, 0x08, 0x80, 0x80, 0x80, 0x80, 0x10],
                .invalidInitPacket(
                    file: "x.dat", offset: 5, problem: .valueOutOfRange(field: "InitCommand.fw_version", value: 1 << 32)
                )
            ),
            (
                [0x0A, 0x04, 0x12, 0x02, 0x20, 0x09],
                .invalidInitPacket(
                    file: "x.dat", offset: 5, problem: .unknownEnumValue(field: "InitCommand.type", value: 9))
            ),
            (
                [0x12, 0x06, 0x0A, 0x00, 0x10, 0x02, 0x1A, 0x00],
                .invalidInitPacket(
                    file: "x.dat", offset: 5,
                    problem: .unknownEnumValue(field: "SignedCommand.signature_type", value: 2))
            ),
            (
                [0x0A, 0x03, 0x0A, 0x01, 0x00],
                .invalidInitPacket(
                    file: "x.dat", offset: 2, problem: .wrongWireType(field: "Command.op_code", wireType: 2))
            ),
            (
                [0x0A, 0x02, 0x10, 0x01],
                .invalidInitPacket(
                    file: "x.dat", offset: 2, problem: .wrongWireType(field: "Command.init", wireType: 0))
            ),
            ([0x00, 0x00], .invalidInitPacket(file: "x.dat", offset: 0, problem: .invalidFieldNumber(0))),
            ([0x0B], .invalidInitPacket(file: "x.dat", offset: 0, problem: .unsupportedWireType(3))),
            ([0x0F], .invalidInitPacket(file: "x.dat", offset: 0, problem: .unsupportedWireType(7))),
            ([], .emptyInitPacket(file: "x.dat")),
            ([0x28, 0x01], .emptyInitPacket(file: "x.dat")),
            ([0x0A, 0x00, 0x12, 0x06, 0x0A, 0x00, 0x10, 0x00, 0x1A, 0x00], .ambiguousInitPacket(file: "x.dat")),
            ([0x0A, 0x06, 0x12, 0x04, 0x42, 0x02, 0x08, 0x03], .missingField(file: "x.dat", field: "Hash.hash")),
            ([0x0A, 0x06, 0x12, 0x04, 0x42, 0x02, 0x12, 0x00], .missingField(file: "x.dat", field: "Hash.hash_type")),
            (
                [0x0A, 0x06, 0x12, 0x04, 0x52, 0x02, 0x12, 0x00],
                .missingField(file: "x.dat", field: "BootValidation.type")
            ),
            ([0x0A, 0x02, 0x1A, 0x00], .missingField(file: "x.dat", field: "ResetCommand.timeout")),
            ([0x12, 0x04, 0x0A, 0x00, 0x10, 0x00], .missingField(file: "x.dat", field: "SignedCommand.signature")),
            ([0x12, 0x04, 0x10, 0x00, 0x1A, 0x00], .missingField(file: "x.dat", field: "SignedCommand.command")),
            (
                [0x12, 0x04, 0x0A, 0x00, 0x1A, 0x00],
                .missingField(file: "x.dat", field: "SignedCommand.signature_type")
            ),
        ] as [([UInt8], DFUPackageError)])
    func rejectsMalformed(bytes: [UInt8], error: DFUPackageError) {
        #expect(throws: error) { try SecureInitPacket(decoding: bytes, file: "x.dat") }
    }

    @Test("rejects every truncation of a signed packet")
    func rejectsTruncations() {
        let bytes = Self.packets[1].encoded()
        for length in 0..<bytes.count {
            #expect(throws: DFUPackageError.self) { try SecureInitPacket(decoding: Array(bytes[..<length]), file: "x") }
        }
    }

    @Test("the signed message is the InitCommand as stored, with r and s turned big-endian")
    func signedMessage() throws {
        let r = Array(0..<32 as Range<UInt8>)
        let s = Array(100..<132 as Range<UInt8>)
        let packet = SecureInitPacket(
            initCommand: Self.sdk15Command, signature: .init(type: .ecdsaP256SHA256, bytes: r + s))
        let message = try #require(try SecureInitPacket.signedMessage(in: packet.encoded(), file: "x.dat"))
        #expect(message.message == Self.sdk15Command.encoded())
        #expect(message.signature == r.reversed() + s.reversed())
        #expect(message.signatureType == .ecdsaP256SHA256)
        #expect(
            try SecureInitPacket.signedMessage(
                in: SecureInitPacket(initCommand: Self.sdk15Command).encoded(), file: "x") == nil)
    }

    @Test("the signed message keeps non-canonical bytes instead of re-encoding them")
    func signedMessageKeepsOriginalBytes() throws {
        let initBytes: [UInt8] = [0x18, 0xA8, 0x01, 0x58, 0x00, 0x38, 0x04]  // unpacked sd_req, unknown field 11
        let command: [UInt8] = [0x08, 0x01, 0x12, UInt8(initBytes.count)] + initBytes
        let signed: [UInt8] = [0x0A, UInt8(command.count)] + command + [0x10, 0x00, 0x1A, 0x02, 0xAB, 0xCD]
        let bytes: [UInt8] = [0x12, UInt8(signed.count)] + signed
        let message = try #require(try SecureInitPacket.signedMessage(in: bytes, file: "x.dat"))
        #expect(message.message == initBytes)
        #expect(message.signature == [0xAB, 0xCD])
    }

    @Test("a missing init command in a signed packet has no signed message")
    func signedWithoutInit() {
        let bytes: [UInt8] = [0x12, 0x08, 0x0A, 0x02, 0x08, 0x01, 0x10, 0x00, 0x1A, 0x00]
        #expect(throws: DFUPackageError.missingField(file: "x.dat", field: "Command.init")) {
            try SecureInitPacket.signedMessage(in: bytes, file: "x.dat")
        }
    }

    @Test("swapping halves turns Nordic's little-endian key halves into big-endian")
    func swapsHalves() {
        #expect(SignedMessage.swappingHalvesByteOrder([1, 2, 3, 4, 5, 6]) == [3, 2, 1, 6, 5, 4])
        #expect(SignedMessage.swappingHalvesByteOrder([]) == [])
    }
}

@Suite struct InitCommandValidationTests {
    static let image = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }

    static func command(_ type: FirmwareType?, sd: UInt32? = nil, bl: UInt32? = nil, app: UInt32? = nil) -> InitCommand
    {
        InitCommand(type: type, sdSize: sd, blSize: bl, appSize: app, hash: InitCommand.Hash(sha256Of: image))
    }

    @Test("the hash is SHA-256 of the image byte-reversed")
    func hashIsReversed() {
        let hash = InitCommand.Hash(sha256Of: Self.image)
        #expect(hash.hashType == .sha256)
        #expect(hash.hash == SHA256.hash(Self.image).reversed())
        #expect(hash.standardOrderDigest == SHA256.hash(Self.image))
    }

    @Test(
        "accepts an image matching the declared size for its type",
        arguments: [
            command(.application, sd: 0, bl: 0, app: 1000), command(.externalApplication, app: 1000),
            command(.softdevice, sd: 1000), command(.bootloader, bl: 1000, app: 0),
            command(.softdeviceBootloader, sd: 600, bl: 400),
        ])
    func acceptsMatchingImage(command: InitCommand) throws {
        try command.validate(image: Self.image, imageFile: "a.bin", initPacketFile: "a.dat")
    }

    @Test(
        "rejects size mismatches and missing sizes",
        arguments: [
            (
                command(.application, app: 1004),
                DFUPackageError.imageSizeMismatch(file: "a.bin", actual: 1000, declared: 1004)
            ),
            (command(.softdevice, sd: 996, app: 4), .imageSizeMismatch(file: "a.bin", actual: 1000, declared: 996)),
            (
                command(.softdeviceBootloader, sd: 600, bl: 404),
                .imageSizeMismatch(file: "a.bin", actual: 1000, declared: 1004)
            ),
            (command(.application, sd: 1000), .missingField(file: "a.dat", field: "InitCommand.app_size")),
            (command(.bootloader, app: 1000), .missingField(file: "a.dat", field: "InitCommand.bl_size")),
            (command(.softdeviceBootloader, sd: 1000), .missingField(file: "a.dat", field: "InitCommand.bl_size")),
            (command(nil, app: 1000), .missingField(file: "a.dat", field: "InitCommand.type")),
        ] as [(InitCommand, DFUPackageError)])
    func rejectsSizes(command: InitCommand, error: DFUPackageError) {
        #expect(throws: error) { try command.validate(image: Self.image, imageFile: "a.bin", initPacketFile: "a.dat") }
    }

    @Test("rejects a hash that is missing, not SHA-256, or different")
    func rejectsHashes() {
        var command = Self.command(.application, app: 1000)
        command.hash = nil
        #expect(throws: DFUPackageError.missingField(file: "a.dat", field: "InitCommand.hash")) {
            try command.checkHash(of: Self.image, imageFile: "a.bin", initPacketFile: "a.dat")
        }
        command.hash = .init(hashType: .crc, hash: [1, 2, 3, 4])
        #expect(throws: DFUPackageError.unsupportedHashType(file: "a.dat", hashType: .crc)) {
            try command.checkHash(of: Self.image, imageFile: "a.bin", initPacketFile: "a.dat")
        }
        // Stored in standard order by mistake: only a palindrome digest would pass.
        command.hash = .init(hashType: .sha256, hash: SHA256.hash(Self.image))
        #expect(
            throws: DFUPackageError.imageHashMismatch(
                file: "a.bin", actual: SHA256.hash(Self.image), declared: SHA256.hash(Self.image).reversed())
        ) {
            try command.checkHash(of: Self.image, imageFile: "a.bin", initPacketFile: "a.dat")
        }
    }
}

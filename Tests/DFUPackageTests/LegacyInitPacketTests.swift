import Checksums
import Testing

@testable import DFUPackage

@Suite struct LegacyInitPacketTests {
    static let image = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }

    @Test("decodes the SDK 11 sd_bl.dat from dfu-protocols.md §1.7")
    func decodesSDK11Example() throws {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0x66, 0x05]
        let packet = try LegacyInitPacket(decoding: bytes, file: "sd_bl.dat")
        #expect(packet == LegacyInitPacket(validation: .crc16(0x0566)))
        #expect(packet.encoded() == bytes)
    }

    @Test("decodes adafruit-nrfutil's genpkg output for --dev-type 0x0052 --sd-req 0x00B6")
    func decodesAdafruitExample() throws {
        // adafruit-nrfutil 0.5.3.post16 `dfu genpkg` of the SDK 15 blinky_mbr.hex (CRC-16 0x6E9A).
        let bytes: [UInt8] = [0x52, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xB6, 0x00, 0x9A, 0x6E]
        let packet = try LegacyInitPacket(decoding: bytes, file: "blinky_mbr.dat")
        #expect(packet.deviceType == 0x52)
        #expect(packet.softdeviceReq == [0xB6])
        #expect(packet.validation == .crc16(0x6E9A))
    }

    static let packets: [LegacyInitPacket] = [
        LegacyInitPacket(validation: .crc16(0x1234)),
        LegacyInitPacket(
            deviceType: 0x52, deviceRevision: 1, applicationVersion: 7, softdeviceReq: [], validation: .crc16(0)),
        LegacyInitPacket(softdeviceReq: [0x80, 0x87, 0x81], validation: .extendedCRC16(0xBEEF)),
        LegacyInitPacket(validation: .sha256(firmwareLength: 2048, digest: SHA256.hash(image))),
        LegacyInitPacket(
            validation: .signedSHA256(
                firmwareLength: 2048, digest: SHA256.hash(image), signature: (0..<64).map { UInt8($0) })),
    ]

    @Test("decoding inverts encoding", arguments: packets)
    func roundTrips(packet: LegacyInitPacket) throws {
        #expect(try LegacyInitPacket(decoding: packet.encoded(), file: "a.dat") == packet)
    }

    @Test(
        "generates the extension nrfutil 0.5 computes for each dfu_ver",
        arguments: [
            (LegacyInitPacket.Format.crc16, 14, LegacyInitPacket.Validation.crc16(CRC16.checksum(image))),
            (.extendedCRC16, 18, .extendedCRC16(CRC16.checksum(image))),
            (.sha256, 52, .sha256(firmwareLength: 2048, digest: SHA256.hash(image))),
        ])
    func generates(format: LegacyInitPacket.Format, length: Int, validation: LegacyInitPacket.Validation) throws {
        let packet = LegacyInitPacket(deviceType: 0x52, softdeviceReq: [0xB6], image: Self.image, format: format)
        #expect(packet.validation == validation)
        #expect(packet.encoded().count == length)
        #expect(
            packet.encoded().prefix(12) == [0x52, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xB6, 0x00])
        try packet.validate(image: Self.image, imageFile: "a.bin")
    }

    @Test("the 0.6 extension is id 0 then the CRC, little-endian")
    func extendedLayout() {
        let packet = LegacyInitPacket(validation: .extendedCRC16(0x6E9A))
        #expect(packet.encoded().suffix(6) == [0x00, 0x00, 0x00, 0x00, 0x9A, 0x6E])
    }

    @Test("a 0.8 packet's signed message is everything before the signature")
    func signedMessage() {
        let signature = (0..<64).map { UInt8($0) }
        let packet = LegacyInitPacket(
            validation: .signedSHA256(firmwareLength: 4, digest: SHA256.hash([1, 2, 3, 4]), signature: signature))
        let message = packet.signedMessage
        #expect(message?.message == Array(packet.encoded().prefix(12 + 40)))
        #expect(message?.signature == signature)
        #expect(LegacyInitPacket(validation: .crc16(1)).signedMessage == nil)
    }

    @Test(
        "rejects truncated, overlong and unknown layouts",
        arguments: [
            ([], DFUPackageError.invalidInitPacket(file: "a.dat", offset: 0, problem: .truncated)),
            ([0xFF, 0xFF, 0xFF], .invalidInitPacket(file: "a.dat", offset: 3, problem: .truncated)),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0xFE, 0xFF, 0x66, 0x05],
                .invalidInitPacket(file: "a.dat", offset: 14, problem: .truncated)
            ),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0x66],
                .invalidInitPacket(file: "a.dat", offset: 13, problem: .truncated)
            ),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0x66, 0x05, 0x00],
                .invalidInitPacket(file: "a.dat", offset: 14, problem: .trailingBytes(count: 1))
            ),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 3, 0, 0, 0, 0x66, 0x05],
                .invalidInitPacket(file: "a.dat", offset: 12, problem: .unknownExtension(id: 3))
            ),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0, 0, 0, 0, 0x66, 0x05, 0, 0],
                .invalidInitPacket(file: "a.dat", offset: 18, problem: .trailingBytes(count: 2))
            ),
            (
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 1, 0, 0, 0, 4, 0, 0, 0, 1],
                .invalidInitPacket(file: "a.dat", offset: 21, problem: .truncated)
            ),
        ] as [([UInt8], DFUPackageError)])
    func rejectsMalformed(bytes: [UInt8], error: DFUPackageError) {
        #expect(throws: error) { try LegacyInitPacket(decoding: bytes, file: "a.dat") }
    }

    @Test("rejects an image whose CRC, length or digest differs")
    func rejectsMismatchedImage() {
        let crc = CRC16.checksum(Self.image)
        #expect(throws: DFUPackageError.imageCRC16Mismatch(file: "a.bin", actual: crc, declared: crc ^ 1)) {
            try LegacyInitPacket(validation: .crc16(crc ^ 1)).validate(image: Self.image, imageFile: "a.bin")
        }
        let digest = SHA256.hash(Self.image)
        #expect(throws: DFUPackageError.imageSizeMismatch(file: "a.bin", actual: 2048, declared: 2044)) {
            try LegacyInitPacket(validation: .sha256(firmwareLength: 2044, digest: digest))
                .validate(image: Self.image, imageFile: "a.bin")
        }
        let other = SHA256.hash([1])
        #expect(throws: DFUPackageError.imageHashMismatch(file: "a.bin", actual: digest, declared: other)) {
            try LegacyInitPacket(validation: .sha256(firmwareLength: 2048, digest: other))
                .validate(image: Self.image, imageFile: "a.bin")
        }
    }
}

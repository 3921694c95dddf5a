import Foundation
import MCUbootImage
import TestSupport
import Testing

/// The committed imgtool images in `Tests/Data/mcuboot` (see its README for the commands).
enum MCUbootFixtures {
    static let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot")
    static let images = ["hash-only", "ecdsa-p256", "ed25519", "ecdsa-p256-confirm"]

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    static func image(_ name: String) throws -> MCUbootImage {
        try MCUbootImage(bytes: try bytes(name + ".bin"), file: name + ".bin")
    }

    /// imgtool's `dumpinfo --format json` transcript.
    static func dumpinfo(_ name: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(try bytes(name + ".dumpinfo.json")))
        return try #require(object as? [String: Any])
    }

    static func key(_ name: String) throws -> MCUbootVerificationKey {
        try MCUbootVerificationKey(pem: try text(name), file: name)
    }
}

@Suite struct MCUbootImageTests {
    @Test("parses every committed image as imgtool dumpinfo does", arguments: MCUbootFixtures.images)
    func agreesWithImgtool(name: String) throws {
        let image = try MCUbootFixtures.image(name)
        let info = try MCUbootFixtures.dumpinfo(name)
        let header = try #require(info["header"] as? [String: Any])
        #expect(header["magic"] as? Int == Int(MCUbootImageHeader.magic))
        #expect(header["load_addr"] as? Int == Int(image.header.loadAddress))
        #expect(header["hdr_size"] as? Int == image.header.headerSize)
        #expect(header["protected_tlv_size"] as? Int == image.header.protectedTLVSize)
        #expect(header["img_size"] as? Int == image.header.imageSize)
        #expect(header["flags"] as? Int == Int(image.header.flags))
        #expect(header["version"] as? String == image.header.version.description)

        let area = try #require(info["tlv_area"] as? [String: Any])
        func compare(_ entries: Any?, _ ours: [MCUbootTLV]) throws {
            let theirs = try #require(entries as? [[String: Any]])
            #expect(theirs.count == ours.count)
            for (their, our) in zip(theirs, ours) {
                #expect(their["type"] as? Int == Int(our.type))
                #expect(their["type_name"] as? String == our.typeName)
                #expect(their["len"] as? Int == our.value.count)
                #expect(their["data"] as? String == our.value.map { String(format: "%02x", $0) }.joined())
            }
        }
        try compare(area["tlvs"], image.tlvs.entries)
        try compare(area["tlvs_prot"], image.protectedTLVs?.entries ?? [])
        let tlvHeader = try #require(area["tlv_hdr"] as? [String: Any])
        #expect(tlvHeader["magic"] as? Int == Int(image.tlvs.magic))
        #expect(tlvHeader["tlv_tot"] as? Int == image.tlvs.totalSize)
        let protectedHeader = try #require(area["tlv_hdr_prot"] as? [String: Any])
        #expect(protectedHeader["magic"] as? Int == image.protectedTLVs.map { Int($0.magic) })
        #expect(protectedHeader["tlv_tot"] as? Int == image.protectedTLVs?.totalSize)

        let trailer = try #require(info["trailer"] as? [String: Any])
        #expect(
            trailer["magic"] as? String == image.trailer.map { $0.magic.map { String(format: "%02x", $0) }.joined() })
        #expect(trailer["image_ok"] as? Int == image.trailer?.imageOK.map(Int.init))
        #expect(trailer["copy_done"] as? Int == image.trailer?.copyDone.map(Int.init))
        #expect(trailer["swap_info"] as? Int == image.trailer?.swapInfo.map(Int.init))
        #expect(trailer["swap_size"] as? Int == image.trailer?.swapSize.map(Int.init))
    }

    @Test("the SHA-256 TLV matches imgtool verify's digest", arguments: MCUbootFixtures.images)
    func hashMatchesImgtool(name: String) throws {
        let image = try MCUbootFixtures.image(name)
        let digest = try image.verifiedHash().map { String(format: "%02x", $0) }.joined()
        #expect(try MCUbootFixtures.text("verify.txt").contains("Image digest: \(digest)"))
    }

    @Test("signatures verify with the signing key or its public part")
    func signatures() throws {
        for (image, keys) in [
            ("ecdsa-p256", ["ecdsa-p256.pem", "ecdsa-p256.pub.pem"]), ("ed25519", ["ed25519.pem", "ed25519.pub.pem"]),
            ("ecdsa-p256-confirm", ["ecdsa-p256.pem", "ecdsa-p256.pub.pem"]),
        ] {
            for key in keys {
                #expect(throws: Never.self) { try MCUbootFixtures.key(key).verify(try MCUbootFixtures.image(image)) }
            }
        }
    }

    @Test("another key, a key of the other type, and an unsigned image are refused by name")
    func wrongKeys() throws {
        let ecdsa = try MCUbootFixtures.image("ecdsa-p256")
        #expect(throws: MCUbootImageError.keyHashMismatch(file: "ecdsa-p256.bin", keyFile: "ecdsa-p256-other.pem")) {
            try MCUbootFixtures.key("ecdsa-p256-other.pem").verify(ecdsa)
        }
        #expect(throws: MCUbootImageError.unsigned(file: "ecdsa-p256.bin", keyType: "ed25519")) {
            try MCUbootFixtures.key("ed25519.pem").verify(ecdsa)
        }
        #expect(throws: MCUbootImageError.unsigned(file: "hash-only.bin", keyType: "ECDSA P-256")) {
            try MCUbootFixtures.key("ecdsa-p256.pem").verify(try MCUbootFixtures.image("hash-only"))
        }
        // The PUBKEY form names the key in full.
        #expect(
            throws: MCUbootImageError.keyHashMismatch(file: "ecdsa-p256-confirm.bin", keyFile: "ecdsa-p256-other.pem")
        ) {
            try MCUbootFixtures.key("ecdsa-p256-other.pem").verify(try MCUbootFixtures.image("ecdsa-p256-confirm"))
        }
    }

    @Test("a flipped body byte breaks the hash; a flipped signature byte breaks the signature")
    func tampering() throws {
        var body = try MCUbootFixtures.bytes("ed25519.bin")
        body[0x300] ^= 0x01
        let tampered = try MCUbootImage(bytes: body, file: "t.bin")
        #expect(throws: MCUbootImageError.self) { try tampered.verifiedHash() }
        for name in ["ed25519", "ecdsa-p256"] {
            var bytes = try MCUbootFixtures.bytes(name + ".bin")
            let image = try MCUbootImage(bytes: bytes, file: "s.bin")
            let signature = try #require(image.tlvs.entries.last)
            bytes[signature.offset + 4 + signature.value.count - 3] ^= 0x40
            let broken = try MCUbootImage(bytes: bytes, file: "s.bin")
            #expect(throws: Never.self) { try broken.verifiedHash() }
            #expect(
                throws: MCUbootImageError.signatureInvalid(
                    file: "s.bin", keyFile: name + ".pem", tlv: signature.typeName)
            ) {
                try MCUbootFixtures.key(name + ".pem").verify(broken)
            }
        }
    }

    @Test("the trailer of a --confirm image asks for a permanent swap; the others have none")
    func trailer() throws {
        #expect(try MCUbootFixtures.image("ecdsa-p256-confirm").swapRequestedByTrailer == .permanent)
        #expect(try MCUbootFixtures.image("ecdsa-p256").swapRequestedByTrailer == nil)
        // A --pad trailer (magic, image_ok unset) asks for a test swap.
        var padded = try MCUbootFixtures.bytes("ecdsa-p256-confirm.bin")
        padded[padded.count - 24] = 0xFF
        #expect(try MCUbootImage(bytes: padded, file: "p.bin").swapRequestedByTrailer == .test)
    }

    static let broken: [(String, @Sendable (inout [UInt8]) -> Void, String)] = [
        ("short", { $0 = Array($0.prefix(20)) }, "x.bin: 20 bytes is shorter than the 32-byte MCUboot image header"),
        (
            "magic", { $0[0] = 0 },
            "x.bin: header magic is 0x96F3B800, not MCUboot's 0x96F3B83D (not a signed MCUboot image: sign it with imgtool)"
        ),
        (
            "hdr_size",
            {
                $0[8] = 16
                $0[9] = 0
            }, "x.bin: header hdr_size is 16, less than 32"
        ),
        (
            "img_size", { $0[15] = 0x01 },
            "x.bin: header img_size is 16786216: header and body need 16786728 bytes, the file has 9674"
        ),
        (
            "protected magic", { $0[0x2528] = 0x07 },
            "x.bin offset 0x00002528: TLV area magic is 0x6907, expected 0x6908 (protected TLV area)"
        ),
        (
            "TLV length", { $0[0x2534 + 4 + 2] = 0xFF },
            "x.bin offset 0x00002538: TLV 0x10 of 255 bytes runs past the end of its area"
        ),
        (
            "truncated", { $0 = Array($0.prefix(0x2534 + 10)) },
            "x.bin offset 0x00002534: TLV area size 150 runs past the end of the file (10 bytes left)"
        ),
    ]

    @Test("malformed images fail with a message naming the file and the place", arguments: broken)
    func malformed(what: String, damage: @Sendable (inout [UInt8]) -> Void, message: String) throws {
        var bytes = try MCUbootFixtures.bytes("ecdsa-p256.bin")
        damage(&bytes)
        do {
            _ = try MCUbootImage(bytes: bytes, file: "x.bin")
            Issue.record("\(what): parsed")
        } catch {
            #expect("\(error)" == message)
        }
    }
}

import Checksums
import TestSupport
import Testing

@Suite struct SHA256Tests {
    @Test(
        "matches the FIPS 180-4 examples",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(hexString(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test("a million 'a' fed in uneven pieces")
    func millionA() {
        var digest = SHA256()
        var fed = 0
        var random = SeededGenerator(seed: 7)
        while fed < 1_000_000 {
            let piece = min(1_000_000 - fed, Int.random(in: 0...300, using: &random))
            digest.update([UInt8](repeating: 0x61, count: piece))
            fed += piece
        }
        #expect(hexString(digest.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every message length around the padding boundary hashes the same in one piece or many", arguments: 50...130)
    func pieces(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var digest = SHA256()
        for byte in message { digest.update([byte]) }
        #expect(digest.finalize() == SHA256.hash(message))
    }
}

@Suite struct CRCTests {
    @Test("CRC-32 check value of '123456789' is 0xCBF43926")
    func crc32Check() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        var running = CRC32()
        running.update(Array("12345".utf8))
        running.update(Array("6789".utf8)[...])
        #expect(running.value == 0xCBF4_3926)
        #expect(CRC32(continuingFrom: 0).value == 0)
    }

    @Test("CRC-16/CCITT-FALSE check value of '123456789' is 0x29B1")
    func crc16Check() {
        #expect(CRC16.checksum(Array("123456789".utf8)) == 0x29B1)
        #expect(CRC16.checksum(Array("6789".utf8), initial: CRC16.checksum(Array("12345".utf8))) == 0x29B1)
    }
}

import Checksums
import DFUPackage
import DFUSigning
import Foundation
import TestSupport
import Testing

@Suite
struct FixtureSignatureTests {
    @Test(
        "every real package's signature verifies with its SDK release's debug key", arguments: NordicFixtures.allZips()
    )
    func verifiesWithDebugKey(path: String) throws {
        let key = try #require(try NordicFixtures.debugKey(for: path), "no debug key for \(path)")
        #expect(key.signsFixturesHere.contains(path))
        let verifier = try InitPacketVerifier(nordicPublicKey: bytes(hex: key.pkAsStoredHex), file: "sdk-\(key.sdk)")
        let package = try DFUPackage(zip: try NordicFixtures.bytes(path), name: path)
        #expect(!package.parts.isEmpty)
        for part in package.parts {
            #expect(try verifier.check(part, packageName: package.name) == .valid)
        }
    }

    @Test(
        "a debug key from another SDK release finds every real signature invalid", arguments: NordicFixtures.allZips())
    func rejectsOtherRelease(path: String) throws {
        let own = try #require(try NordicFixtures.debugKey(for: path))
        for key in try NordicFixtures.debugKeys() where key.pkAsStoredHex != own.pkAsStoredHex {
            let verifier = try InitPacketVerifier(nordicPublicKey: bytes(hex: key.pkAsStoredHex), file: key.sdk)
            let package = try DFUPackage(zip: try NordicFixtures.bytes(path), name: path)
            for part in package.parts {
                #expect(try verifier.check(part, packageName: path) == .invalid)
            }
        }
    }

    @Test("the C-array, big-endian and SEC1 forms of every debug key are the same point")
    func keyFormsAgree() throws {
        for key in try NordicFixtures.debugKeys() {
            let stored = bytes(hex: key.pkAsStoredHex)
            let x = bytes(hex: key.xBigEndianHex)
            let y = bytes(hex: key.yBigEndianHex)
            #expect(stored == x.reversed() + y.reversed(), "SDK \(key.sdk)")
            #expect(bytes(hex: key.sec1UncompressedHex) == [0x04] + x + y)
            let raw = try InitPacketVerifier(nordicPublicKey: stored, file: key.sdk)
            #expect(raw.nordicPublicKey == stored)
            // The same key as SubjectPublicKeyInfo PEM: fixed P-256 header, then the SEC1 point.
            let spki = bytes(hex: "3059301306072a8648ce3d020106082a8648ce3d030107034200") + [0x04] + x + y
            let pem = "-----BEGIN PUBLIC KEY-----\n\(Data(spki).base64EncodedString())\n-----END PUBLIC KEY-----\n"
            #expect(try InitPacketVerifier(pem: pem, file: key.sdk).nordicPublicKey == stored)
            #expect(raw.pemRepresentation.contains("-----BEGIN PUBLIC KEY-----"))
        }
    }

    static let sample = "sdk-15.0.0/secure_dfu_test_images/ble/nrf52832/hrs_application_s132.zip"

    @Test("flipping any one bit of the signed InitCommand or of the signature makes it invalid")
    func flippedBits() throws {
        let key = try #require(try NordicFixtures.debugKey(for: Self.sample))
        let verifier = try InitPacketVerifier(nordicPublicKey: bytes(hex: key.pkAsStoredHex), file: key.sdk)
        let package = try DFUPackage(zip: try NordicFixtures.bytes(Self.sample), name: Self.sample)
        let signed = try #require(package.parts.first?.signedMessage)
        #expect(try verifier.check(signed, file: "x.dat") == .valid)
        for index in signed.message.indices {
            var message = signed.message
            message[index] ^= 1 << UInt8(index % 8)
            let flipped = SignedMessage(message: message, signatureType: .ecdsaP256SHA256, signature: signed.signature)
            #expect(try verifier.check(flipped, file: "x.dat") == .invalid, "message byte \(index)")
        }
        for index in signed.signature.indices {
            var signature = signed.signature
            signature[index] ^= 0x80 >> UInt8(index % 8)
            let flipped = SignedMessage(message: signed.message, signatureType: .ecdsaP256SHA256, signature: signature)
            #expect(try verifier.check(flipped, file: "x.dat") == .invalid, "signature byte \(index)")
        }
    }

    @Test("a .dat whose firmware hash was altered still decodes, and its signature no longer verifies")
    func alteredDat() throws {
        let key = try #require(try NordicFixtures.debugKey(for: Self.sample))
        let verifier = try InitPacketVerifier(nordicPublicKey: bytes(hex: key.pkAsStoredHex), file: key.sdk)
        let part = try #require(
            try DFUPackage(zip: try NordicFixtures.bytes(Self.sample), name: Self.sample).parts.first)
        let hash = Array(SHA256.hash(part.firmware).reversed())
        let range = try #require(part.initPacketBytes.firstRange(of: hash))
        var dat = part.initPacketBytes
        dat[range.lowerBound + 5] ^= 0x10
        let signed = try SecureInitPacket.signedMessage(in: dat, file: "hrs.dat")
        #expect(try verifier.check(signed, file: "hrs.dat") == .invalid)
    }
}

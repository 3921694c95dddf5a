import DFUPackage
import DFUSigning
import Foundation
import TestSupport
import Testing

/// Checks our signer and verifier against Python's `cryptography` (OpenSSL underneath), an implementation we did
/// not write: it verifies our signatures after undoing Nordic's byte order, and it signs messages our verifier must
/// accept.
@Suite(.enabled(if: KeyTools.hasPythonCryptography, "needs python3 with the cryptography package"))
struct PythonDifferentialTests {
    /// Verifies a Nordic-order signature; prints "valid" or "invalid".
    ///
    /// Arguments: public key PEM, message hex, signature hex (r and s each little-endian).
    static let verifyProgram = """
        import sys
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
        key = serialization.load_pem_public_key(sys.argv[1].encode())
        message = bytes.fromhex(sys.argv[2])
        stored = bytes.fromhex(sys.argv[3])
        r = int.from_bytes(stored[:32], "little")
        s = int.from_bytes(stored[32:], "little")
        try:
            key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
            print("valid")
        except InvalidSignature:
            print("invalid")
        """

    /// Makes a new key and signs the message hex given as the argument.
    ///
    /// Prints, one per line: the key's SEC1 private PEM as hex, the public X‖Y big-endian hex, and the r‖s
    /// big-endian hex of its signature over the message.
    static let signProgram = """
        import sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        key = ec.generate_private_key(ec.SECP256R1())
        der = key.sign(bytes.fromhex(sys.argv[1]), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        numbers = key.public_key().public_numbers()
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
        print(pem.hex())
        print(numbers.x.to_bytes(32, "big").hex() + numbers.y.to_bytes(32, "big").hex())
        print(r.to_bytes(32, "big").hex() + s.to_bytes(32, "big").hex())
        """

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("Python verifies our init packet signatures once r and s are read little-endian")
    func pythonVerifiesOurs() throws {
        let signer = InitPacketSigner()
        let image = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let options = SecureInitOptions(fwVersion: 1, hwVersion: 52, sdReq: [0x101], isDebug: true)
        let part = try DFUPackage.Part(secure: .application(image), options: options, signer: signer, source: "a.hex")
        let signed = try #require(part.signedMessage)
        guard case .secure(let packet) = part.initPacket, let stored = packet.signature?.bytes else {
            Issue.record("not a signed Secure packet")
            return
        }
        let publicPEM = signer.verifier.pemRepresentation
        let verdict = try KeyTools.python(Self.verifyProgram, [publicPEM, Self.hex(signed.message), Self.hex(stored)])
        #expect(verdict == "valid\n")
        var tampered = signed.message
        tampered[tampered.count / 2] ^= 1
        let rejected = try KeyTools.python(Self.verifyProgram, [publicPEM, Self.hex(tampered), Self.hex(stored)])
        #expect(rejected == "invalid\n")
        // Read in the wrong (big-endian) order, the same bytes are not a valid signature.
        let unswapped = try KeyTools.python(
            Self.verifyProgram,
            [publicPEM, Self.hex(signed.message), Self.hex(SignedMessage.swappingHalvesByteOrder(stored))])
        #expect(unswapped == "invalid\n")
    }

    @Test("our verifier accepts Python's signatures, given its key as PEM or in Nordic's C-array order")
    func weVerifyPython() throws {
        let message = Array("dfu.InitCommand bytes would go here".utf8)
        let lines = try KeyTools.python(Self.signProgram, [Self.hex(message)]).split(separator: "\n").map(String.init)
        try #require(lines.count == 3)
        let privatePEM = String(decoding: bytes(hex: lines[0]), as: UTF8.self)
        let publicXY = bytes(hex: lines[1])
        let signature = bytes(hex: lines[2])

        let fromCArray = try InitPacketVerifier(
            nordicPublicKey: SignedMessage.swappingHalvesByteOrder(publicXY), file: "python pk")
        let signed = SignedMessage(message: message, signatureType: .ecdsaP256SHA256, signature: signature)
        #expect(try fromCArray.check(signed, file: "python.dat") == .valid)

        let signer = try InitPacketSigner(pem: privatePEM, file: "python.pem")
        #expect(signer.verifier.nordicPublicKey == fromCArray.nordicPublicKey)
        #expect(try signer.verifier.check(signed, file: "python.dat") == .valid)

        let wrongMessage = SignedMessage(
            message: message + [0], signatureType: .ecdsaP256SHA256, signature: signature)
        #expect(try fromCArray.check(wrongMessage, file: "python.dat") == .invalid)
    }
}

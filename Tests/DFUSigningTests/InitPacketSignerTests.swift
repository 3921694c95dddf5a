import DFUPackage
import DFUSigning
import Foundation
import TestSupport
import Testing

@Suite struct InitPacketSignerTests {
    static let image = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    static let options = SecureInitOptions(fwVersion: 2, hwVersion: 52, sdReq: [0x100], isDebug: false)

    @Test("a part signed with a new key verifies with that key, and only with it")
    func roundTrip() throws {
        let signer = InitPacketSigner()
        let part = try DFUPackage.Part(
            secure: .application(Self.image), options: Self.options, signer: signer, source: "a")
        #expect(try signer.verifier.check(part, packageName: "gen") == .valid)
        #expect(try InitPacketSigner().verifier.check(part, packageName: "gen") == .invalid)
        let unsigned = try DFUPackage.Part(secure: .application(Self.image), options: Self.options, source: "a")
        #expect(try signer.verifier.check(unsigned, packageName: "gen") == .unsigned)
    }

    @Test("a signed generated packet decodes to the same fields as the unsigned one")
    func signedDecodes() throws {
        let signer = InitPacketSigner()
        let signed = try DFUPackage.Part(
            secure: .bootloader(Self.image), options: Self.options, signer: signer, source: "b")
        let unsigned = try DFUPackage.Part(secure: .bootloader(Self.image), options: Self.options, source: "b")
        let decodedSigned = try SecureInitPacket(decoding: signed.initPacketBytes, file: "b.dat")
        let decodedUnsigned = try SecureInitPacket(decoding: unsigned.initPacketBytes, file: "b.dat")
        #expect(decodedSigned.command == decodedUnsigned.command)
        #expect(decodedSigned.signature?.type == .ecdsaP256SHA256)
        #expect(decodedSigned.signature?.bytes.count == 64)
        #expect(decodedUnsigned.signature == nil)
        #expect(try SecureInitPacket.signedMessage(in: signed.initPacketBytes, file: "b.dat") == signed.signedMessage)
    }

    @Test("ECDSA boot validation carries a signature over the image that the same key verifies")
    func bootValidationSignature() throws {
        let signer = InitPacketSigner()
        var options = Self.options
        options.bootValidation = [.validateECDSAP256SHA256]
        let command = try InitCommand(
            generatingFor: .application(Self.image), options: options, signer: signer, file: "a")
        let stored = try #require(command.bootValidation.first?.bytes)
        let message = SignedMessage(
            message: Self.image, signatureType: .ecdsaP256SHA256,
            signature: SignedMessage.swappingHalvesByteOrder(stored))
        #expect(try signer.verifier.check(message, file: "a") == .valid)
    }

    @Test("a key survives its own PEM form")
    func pemRoundTrip() throws {
        let signer = InitPacketSigner()
        let reloaded = try InitPacketSigner(pem: signer.pemRepresentation, file: "k.pem")
        #expect(reloaded.verifier.nordicPublicKey == signer.verifier.nordicPublicKey)
        let verifier = try InitPacketVerifier(pem: signer.verifier.pemRepresentation, file: "pub.pem")
        #expect(verifier.nordicPublicKey == signer.verifier.nordicPublicKey)
    }

    @Test("the checked-in test key pair loads, and its halves match")
    func checkedInKeys() throws {
        let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/keys")
        let privatePEM = try String(contentsOf: folder.appendingPathComponent("test-private-key.pem"), encoding: .utf8)
        let publicPEM = try Array(Data(contentsOf: folder.appendingPathComponent("test-public-key.pem")))
        let signer = try InitPacketSigner(pem: privatePEM, file: "test-private-key.pem")
        let verifier = try InitPacketVerifier(keyFile: publicPEM, file: "test-public-key.pem")
        #expect(verifier.nordicPublicKey == signer.verifier.nordicPublicKey)
        let part = try DFUPackage.Part(
            secure: .application(Self.image), options: Self.options, signer: signer, source: "a")
        #expect(try verifier.check(part, packageName: "gen") == .valid)
    }

    @Test("a public key file may be PEM, 64 raw bytes, or their 128 hex digits")
    func keyFileForms() throws {
        let signer = InitPacketSigner()
        let raw = signer.verifier.nordicPublicKey
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        let forms: [[UInt8]] = [
            Array(signer.verifier.pemRepresentation.utf8), raw, Array(hex.utf8),
            Array("0x\(hex.uppercased())\n".utf8), Array((hex.prefix(64) + "\n" + hex.dropFirst(64)).utf8),
        ]
        for form in forms {
            #expect(try InitPacketVerifier(keyFile: form, file: "pk").nordicPublicKey == raw)
        }
        #expect(throws: DFUSigningError.malformedKeyFile(file: "pk")) {
            try InitPacketVerifier(keyFile: Array("hello".utf8), file: "pk")
        }
    }
}

@Suite(.enabled(if: KeyTools.openssl != nil, "needs the openssl command"))
struct OpenSSLKeyTests {
    static let message = Array("an InitCommand stand-in".utf8)

    /// Signs with a key openssl made and checks with the public key openssl derived from it.
    private func checkPair(privatePEM: String) throws {
        let publicPEM = try KeyTools.openssl(["pkey", "-pubout"], input: Array(privatePEM.utf8))
        let signer = try InitPacketSigner(pem: privatePEM, file: "key.pem")
        let verifier = try InitPacketVerifier(pem: publicPEM, file: "pub.pem")
        #expect(verifier.nordicPublicKey == signer.verifier.nordicPublicKey)
        let signature = SignedMessage.swappingHalvesByteOrder(signer.nordicSignature(over: Self.message))
        let signed = SignedMessage(message: Self.message, signatureType: .ecdsaP256SHA256, signature: signature)
        #expect(try verifier.check(signed, file: "x") == .valid)
    }

    @Test("loads a SEC1 key from 'openssl ecparam -name prime256v1 -genkey -noout'")
    func sec1() throws {
        let pem = try KeyTools.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        #expect(pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        try checkPair(privatePEM: pem)
    }

    @Test("skips the EC PARAMETERS block 'openssl ecparam -genkey' writes without -noout")
    func sec1WithParameters() throws {
        let pem = try KeyTools.openssl(["ecparam", "-name", "prime256v1", "-genkey"])
        #expect(pem.hasPrefix("-----BEGIN EC PARAMETERS-----"))
        try checkPair(privatePEM: pem)
    }

    @Test("loads a PKCS#8 key from 'openssl genpkey'")
    func pkcs8() throws {
        let pem = try KeyTools.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        try checkPair(privatePEM: pem)
    }

    @Test(
        "names the curve or algorithm of a key Nordic bootloaders cannot use",
        arguments: [
            (
                ["ecparam", "-name", "secp384r1", "-genkey", "-noout"],
                DFUSigningError.wrongCurve(file: "k.pem", curve: "P-384 (secp384r1)")
            ),
            (
                ["ecparam", "-name", "secp521r1", "-genkey", "-noout"],
                .wrongCurve(file: "k.pem", curve: "P-521 (secp521r1)")
            ),
            (["ecparam", "-name", "secp256k1", "-genkey", "-noout"], .wrongCurve(file: "k.pem", curve: "secp256k1")),
            (
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
                .wrongCurve(file: "k.pem", curve: "P-384 (secp384r1)")
            ),
            (
                ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
                .wrongKeyAlgorithm(file: "k.pem", algorithm: "RSA")
            ),
            (["genpkey", "-algorithm", "ED25519"], .wrongKeyAlgorithm(file: "k.pem", algorithm: "Ed25519")),
        ] as [([String], DFUSigningError)])
    func wrongKeys(arguments: [String], error: DFUSigningError) throws {
        let pem = try KeyTools.openssl(arguments)
        #expect(throws: error) { try InitPacketSigner(pem: pem, file: "k.pem") }
        let publicPEM = try KeyTools.openssl(["pkey", "-pubout"], input: Array(pem.utf8))
        #expect(throws: error) { try InitPacketVerifier(pem: publicPEM, file: "k.pem") }
    }

    @Test("refuses a public key where a private key belongs, and the other way round")
    func wrongHalf() throws {
        let pem = try KeyTools.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        let publicPEM = try KeyTools.openssl(["pkey", "-pubout"], input: Array(pem.utf8))
        #expect(throws: DFUSigningError.expectedPrivateKey(file: "pub.pem")) {
            try InitPacketSigner(pem: publicPEM, file: "pub.pem")
        }
        #expect(throws: DFUSigningError.expectedPublicKey(file: "key.pem")) {
            try InitPacketVerifier(pem: pem, file: "key.pem")
        }
    }

    @Test("refuses an encrypted key")
    func encrypted() throws {
        let pem = try KeyTools.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        let encrypted = try KeyTools.openssl(
            ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:x"], input: Array(pem.utf8))
        #expect(throws: DFUSigningError.unsupportedPEMBlock(file: "k.pem", label: "ENCRYPTED PRIVATE KEY")) {
            try InitPacketSigner(pem: encrypted, file: "k.pem")
        }
    }
}

@Suite struct DFUSigningErrorTests {
    @Test(
        "malformed key files and signatures throw the case that names the problem",
        arguments: [
            ("no PEM here", DFUSigningError.malformedKeyFile(file: "k.pem")),
            ("-----BEGIN EC PRIVATE KEY-----\nMHcC\n", .malformedKeyFile(file: "k.pem")),
            ("-----BEGIN EC PRIVATE KEY-----\n@@@@\n-----END EC PRIVATE KEY-----\n", .malformedKeyFile(file: "k.pem")),
            ("-----BEGIN EC PRIVATE KEY-----\nAAECAwQF\n-----END EC PRIVATE KEY-----\n", .malformedKey(file: "k.pem")),
            (
                "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n",
                .unsupportedPEMBlock(file: "k.pem", label: "CERTIFICATE")
            ),
            (
                "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAEC\n-----END EC PRIVATE KEY-----\n",
                .unsupportedPEMBlock(file: "k.pem", label: "encrypted EC PRIVATE KEY")
            ),
        ] as [(String, DFUSigningError)])
    func malformedPEM(text: String, error: DFUSigningError) {
        #expect(throws: error) { try InitPacketSigner(pem: text, file: "k.pem") }
    }

    @Test("a raw public key must be 64 bytes and a point on P-256")
    func rawKeys() {
        #expect(throws: DFUSigningError.wrongRawKeyLength(file: "pk", length: 65)) {
            try InitPacketVerifier(nordicPublicKey: Array(repeating: 1, count: 65), file: "pk")
        }
        #expect(throws: DFUSigningError.malformedKey(file: "pk")) {
            try InitPacketVerifier(nordicPublicKey: Array(repeating: 1, count: 64), file: "pk")
        }
    }

    @Test("a signature must be 64 bytes of ECDSA P-256")
    func badSignatures() throws {
        let verifier = InitPacketSigner().verifier
        let short = SignedMessage(
            message: [1], signatureType: .ecdsaP256SHA256, signature: Array(repeating: 1, count: 63))
        #expect(throws: DFUSigningError.wrongSignatureLength(file: "a.zip/a.dat", length: 63)) {
            try verifier.check(short, file: "a.zip/a.dat")
        }
        let ed = SignedMessage(message: [1], signatureType: .ed25519, signature: Array(repeating: 1, count: 64))
        #expect(throws: DFUSigningError.unsupportedSignatureType(file: "a.zip/a.dat", type: .ed25519)) {
            try verifier.check(ed, file: "a.zip/a.dat")
        }
        let zero = SignedMessage(
            message: [1], signatureType: .ecdsaP256SHA256, signature: Array(repeating: 0, count: 64))
        #expect(try verifier.check(zero, file: "a.dat") == .invalid)
    }

    @Test(
        "every error reads as one lowercase line naming the problem and the file",
        arguments: [
            (
                DFUSigningError.malformedKeyFile(file: "k.pem"),
                "k.pem: not a PEM key file, nor a 64-byte raw public key"
            ),
            (
                .unsupportedPEMBlock(file: "k.pem", label: "CERTIFICATE"),
                "k.pem: PEM block 'CERTIFICATE' is not a key this tool reads; need an unencrypted P-256 key"
            ),
            (.malformedKey(file: "k.pem"), "k.pem: key data is malformed"),
            (
                .wrongCurve(file: "k.pem", curve: "secp256k1"),
                "k.pem: key is on curve secp256k1; Nordic bootloaders verify P-256 (prime256v1) only"
            ),
            (
                .wrongKeyAlgorithm(file: "k.pem", algorithm: "RSA"),
                "k.pem: key is RSA; Nordic bootloaders verify ECDSA P-256 only"
            ),
            (.expectedPublicKey(file: "k.pem"), "k.pem: holds a private key where a public key is expected"),
            (.expectedPrivateKey(file: "pub.pem"), "pub.pem: holds a public key where a private key is expected"),
            (
                .wrongRawKeyLength(file: "pk.bin", length: 65),
                "pk.bin: raw public key is 65 bytes, expected 64 (X then Y, each little-endian)"
            ),
            (
                .wrongSignatureLength(file: "a.zip/a.dat", length: 63),
                "a.zip/a.dat: init packet signature is 63 bytes, expected 64"
            ),
            (
                .unsupportedSignatureType(file: "a.zip/a.dat", type: .ed25519),
                "a.zip/a.dat: init packet signature type is ED25519; only ECDSA_P256_SHA256 is supported"
            ),
        ] as [(DFUSigningError, String)])
    func messages(error: DFUSigningError, text: String) {
        #expect(error.description == text)
    }
}

internal import Crypto
internal import FoundationEssentials

/// A PEM key file taken apart far enough to say *why* a key is unusable before swift-crypto parses it.
///
/// swift-crypto reports every failure as one opaque ASN.1 error, and it reads a SEC1 key without checking its
/// curve. This type finds the key block (skipping the `EC PARAMETERS` block `openssl ecparam -genkey` writes without
/// `-noout`), then looks for the algorithm and curve object identifiers in its DER, so a P-384, secp256k1 or RSA key
/// gets a message that names the problem. The key itself is always parsed by swift-crypto.
struct PEMKeyFile {
    /// Whether the chosen block holds a private or a public key.
    enum Kind {
        case privateKey
        case publicKey
    }

    /// The kind of key the chosen block holds.
    let kind: Kind
    /// The block's DER bytes.
    let der: [UInt8]

    /// Finds the key block in `text` and rejects keys that are not P-256.
    ///
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - file: The file's display name, for errors.
    /// - Throws: `malformedKeyFile`, `unsupportedPEMBlock`, `wrongKeyAlgorithm`, `wrongCurve`.
    init(text: String, file: String) throws(DFUSigningError) {
        let blocks = try Self.blocks(in: text, file: file)
        guard let block = blocks.first(where: { $0.label != "EC PARAMETERS" }) ?? blocks.first else {
            throw .malformedKeyFile(file: file)
        }
        switch block.label {
        case "EC PRIVATE KEY", "PRIVATE KEY": kind = .privateKey
        case "PUBLIC KEY": kind = .publicKey
        case "RSA PRIVATE KEY", "RSA PUBLIC KEY": throw .wrongKeyAlgorithm(file: file, algorithm: "RSA")
        default: throw .unsupportedPEMBlock(file: file, label: block.label)
        }
        if let problem = ObjectIdentifiers.problem(in: block.der) {
            switch problem {
            case .curve(let name): throw .wrongCurve(file: file, curve: name)
            case .algorithm(let name): throw .wrongKeyAlgorithm(file: file, algorithm: name)
            }
        }
        der = block.der
    }

    /// The P-256 private key.
    ///
    /// - Parameter file: The file's display name, for errors.
    /// - Returns: The key.
    /// - Throws: `expectedPrivateKey` for a public key block, `malformedKey` when swift-crypto cannot parse it.
    func privateKey(file: String) throws(DFUSigningError) -> P256.Signing.PrivateKey {
        guard kind == .privateKey else { throw .expectedPrivateKey(file: file) }
        do {
            // Tries PKCS#8 ("PRIVATE KEY") first, then SEC1 ("EC PRIVATE KEY", what nrfutil writes).
            return try P256.Signing.PrivateKey(derRepresentation: der)
        } catch {
            throw .malformedKey(file: file)
        }
    }

    /// The P-256 public key.
    ///
    /// - Parameter file: The file's display name, for errors.
    /// - Returns: The key.
    /// - Throws: `expectedPublicKey` for a private key block, `malformedKey` when swift-crypto cannot parse it.
    func publicKey(file: String) throws(DFUSigningError) -> P256.Signing.PublicKey {
        guard kind == .publicKey else { throw .expectedPublicKey(file: file) }
        do {
            return try P256.Signing.PublicKey(derRepresentation: der)
        } catch {
            throw .malformedKey(file: file)
        }
    }

    /// The PEM blocks of `text` in order: label and decoded base64 body.
    private static func blocks(in text: String, file: String) throws(DFUSigningError) -> [(label: String, der: [UInt8])]
    {
        var blocks: [(label: String, der: [UInt8])] = []
        var open: (label: String, body: String)?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = String(rawLine.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            if let current = open {
                if line == "-----END \(current.label)-----" {
                    guard let der = Data(base64Encoded: current.body) else { throw .malformedKeyFile(file: file) }
                    blocks.append((current.label, Array(der)))
                    open = nil
                } else if line.contains(":") {
                    // RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`): an encrypted traditional key.
                    throw .unsupportedPEMBlock(file: file, label: "encrypted \(current.label)")
                } else {
                    open = (current.label, current.body + line)
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                open = (String(line.dropFirst(11).dropLast(5)), "")
            }
        }
        guard open == nil else { throw .malformedKeyFile(file: file) }
        return blocks
    }
}

/// The DER-encoded object identifiers (tag, length, value) that tell a key's algorithm and curve.
private enum ObjectIdentifiers {
    enum Problem {
        case curve(String)
        case algorithm(String)
    }

    static let p256: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]  // 1.2.840.10045.3.1.7
    static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]  // 1.2.840.10045.2.1

    static let otherCurves: [(oid: [UInt8], name: String)] = [
        ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22], "P-384 (secp384r1)"),  // 1.3.132.0.34
        ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23], "P-521 (secp521r1)"),  // 1.3.132.0.35
        ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x21], "P-224 (secp224r1)"),  // 1.3.132.0.33
        ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x0A], "secp256k1"),  // 1.3.132.0.10
        // 1.3.36.3.3.2.8.1.1.7
        ([0x06, 0x09, 0x2B, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07], "brainpoolP256r1"),
    ]

    static let otherAlgorithms: [(oid: [UInt8], name: String)] = [
        ([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01], "RSA"),  // 1.2.840.113549.1.1.1
        ([0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x01], "DSA"),  // 1.2.840.10040.4.1
        ([0x06, 0x03, 0x2B, 0x65, 0x70], "Ed25519"),  // 1.3.101.112
        ([0x06, 0x03, 0x2B, 0x65, 0x71], "Ed448"),  // 1.3.101.113
        ([0x06, 0x03, 0x2B, 0x65, 0x6E], "X25519"),  // 1.3.101.110
    ]

    /// What is wrong with the key in `der`, judged by the identifiers it contains; nil when it names P-256 or
    /// names no curve at all (a SEC1 key without parameters, left to swift-crypto).
    static func problem(in der: [UInt8]) -> Problem? {
        if der.firstRange(of: p256) != nil { return nil }
        if let curve = otherCurves.first(where: { der.firstRange(of: $0.oid) != nil }) { return .curve(curve.name) }
        if let other = otherAlgorithms.first(where: { der.firstRange(of: $0.oid) != nil }) {
            return .algorithm(other.name)
        }
        if der.firstRange(of: ecPublicKey) != nil { return .curve("given by explicit parameters") }
        return nil
    }
}

import DFUSigning

/// A P-256 private key that signs Secure DFU init packets and bootloader settings, as nrfutil 6.1.7 `keys` makes
/// and shows it.
///
/// The texts are nrfutil's, byte for byte: the SEC 1 PEM `keys generate` writes, and what `keys display` prints for
/// each `--key` and `--format`.
public struct SigningKey: Sendable {
    let text: SigningKeyText
    /// The key file's name, for messages.
    let file: String

    /// A new random key.
    public init() {
        text = SigningKeyText()
        file = "<generated key>"
    }

    /// Reads a private key from PEM text.
    ///
    /// It reads SEC 1 (`-----BEGIN EC PRIVATE KEY-----`, as nrfutil and `openssl ecparam -genkey` write it) and
    /// PKCS #8 (`-----BEGIN PRIVATE KEY-----`); encrypted keys are not read.
    ///
    /// - Parameters:
    ///   - pem: The key file's text.
    ///   - file: The key file's name, for messages.
    /// - Throws: ``UpdateError`` (``ExitStatus/dataError``) for anything but a P-256 private key.
    public init(pem: String, file: String) throws(UpdateError) {
        text = try UpdateError.wrapping { try SigningKeyText(pem: pem, file: file) }
        self.file = file
    }

    /// Reads a private key file (PEM), or standard input for `-`.
    ///
    /// - Parameter path: The key file's path.
    /// - Throws: ``UpdateError``: the file missing or unreadable, or not a P-256 private key.
    public init(contentsOfFile path: String) throws(UpdateError) {
        let bytes = try UpdateError.wrapping { try InputFile(path: path).readAll() }
        try self.init(pem: String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// The private key as the SEC 1 PEM nrfutil `keys generate` writes (ends with a newline).
    public var privateKeyPEM: String { text.privateKeyPEM }

    /// The public key as SubjectPublicKeyInfo PEM, as `keys display --key pk --format pem` prints it.
    public var publicKeyPEM: String { text.publicKeyPEM }

    /// The public key as `keys display --key pk --format hex` prints it: a title line, then the 64 bytes of the
    /// bootloader's `pk[]` (X then Y, each little-endian).
    public var publicKeyHex: String { text.publicKeyHex }

    /// The private key as `keys display --key sk --format hex` prints it.
    public var privateKeyHex: String { text.privateKeyHex }

    /// The `dfu_public_key.c` a bootloader build compiles in, as `keys display --key pk --format code` (or
    /// `dbgcode`) writes it.
    ///
    /// - Parameters:
    ///   - timestamp: The generation time the file's comment names, as nrfutil writes it:
    ///     `2026-11-21 (YY-MM-DD) at 06:42:22`.
    ///   - isDebug: Whether to wrap the key for debug bootloaders only (nrfutil's `dbgcode`).
    /// - Returns: The C source.
    public func publicKeyCSource(generatedAt timestamp: String, isDebug: Bool = false) -> String {
        text.publicKeyCode(generatedAt: timestamp, debug: isDebug)
    }

    /// The signer the package and settings builders take.
    func initPacketSigner() throws(UpdateError) -> InitPacketSigner {
        try UpdateError.wrapping { try InitPacketSigner(pem: text.privateKeyPEM, file: file) }
    }
}

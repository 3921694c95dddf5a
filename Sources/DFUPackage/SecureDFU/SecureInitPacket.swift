/// A Secure DFU init packet: `dfu.Packet` of `dfu-cc.proto`, the whole content of a package's `.dat` file.
///
/// On the wire a packet is either `Packet { command = 1 }` (unsigned) or
/// `Packet { signed_command = 2 { command = 1, signature_type = 2, signature = 3 } }`. Here that choice is
/// ``signature``: nil for the first form, present for the second. A `.dat` made by nrfutil starts with `0A`
/// (unsigned) or `12` (signed).
package struct SecureInitPacket: Sendable, Equatable {
    /// `SignedCommand.signature_type` and `SignedCommand.signature`.
    package struct Signature: Sendable, Equatable {
        /// Field 2 of `SignedCommand`.
        package var type: SignatureType
        /// Field 3 of `SignedCommand`, at most 64 bytes, as stored.
        ///
        /// For ECDSA P-256: r (32 bytes) then s (32 bytes), **each little-endian** (nrfutil `signing.py` reverses
        /// both halves of r‖s). ``SignedMessage/signature`` gives the usual big-endian order.
        package var bytes: [UInt8]

        /// Creates a signature from its stored form.
        ///
        /// - Parameters:
        ///   - type: The algorithm.
        ///   - bytes: The signature in stored order.
        package init(type: SignatureType, bytes: [UInt8]) {
            self.type = type
            self.bytes = bytes
        }
    }

    /// The command; for firmware updates `op_code` INIT with an ``InitCommand``.
    package var command: Command
    /// The signature over the serialized ``InitCommand``, or nil for an unsigned packet.
    package var signature: Signature?

    /// Creates a packet.
    ///
    /// - Parameters:
    ///   - command: The command.
    ///   - signature: The signature, or nil to encode an unsigned packet.
    package init(command: Command, signature: Signature? = nil) {
        self.command = command
        self.signature = signature
    }

    /// Creates the packet nrfutil writes for `initCommand`: op_code INIT plus the command, unsigned unless a
    /// signature is given.
    ///
    /// - Parameters:
    ///   - initCommand: The init command.
    ///   - signature: A signature over `initCommand.encoded()`, in stored order.
    package init(initCommand: InitCommand, signature: Signature? = nil) {
        self.init(command: Command(opCode: .initialize, initCommand: initCommand), signature: signature)
    }

    /// Decodes a `.dat` file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - file: Display name for errors, e.g. `app.zip/nrf52832_xxaa.dat`.
    /// - Throws: `invalidInitPacket` (truncation, overlong varint, bad wire type, unknown enum value, …),
    ///   `missingField` for an absent required field, `emptyInitPacket`, `ambiguousInitPacket`.
    package init(decoding bytes: [UInt8], file: String) throws(DFUPackageError) {
        self = try Self.decode(bytes, file: file).packet
    }

    /// The serialized `Packet`, byte-identical to nrfutil's output for the same fields.
    package func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        if let signature {
            var signed = ProtobufWriter()
            signed.appendBytesField(1, command.encoded())
            signed.appendVarintField(2, UInt64(signature.type.rawValue))
            signed.appendBytesField(3, signature.bytes)
            writer.appendBytesField(2, signed.bytes)
        } else {
            writer.appendBytesField(1, command.encoded())
        }
        return writer.bytes
    }

    /// Returns what a signature check of a signed `.dat` needs: the exact `InitCommand` bytes from the file and
    /// the signature in big-endian order.
    ///
    /// The bytes are cut from the file, not re-encoded, so unknown fields or an unpacked `sd_req` cannot change
    /// what is verified.
    ///
    /// - Parameters:
    ///   - bytes: The `.dat` file's contents.
    ///   - file: Display name for errors.
    /// - Returns: nil when the packet is unsigned.
    /// - Throws: As ``init(decoding:file:)``, and `missingField` for a signed command without `init`.
    package static func signedMessage(in bytes: [UInt8], file: String) throws(DFUPackageError) -> SignedMessage? {
        let decoded = try decode(bytes, file: file)
        guard let signature = decoded.packet.signature else { return nil }
        guard let range = decoded.initRange else { throw .missingField(file: file, field: "Command.init") }
        let standardOrder =
            signature.type == .ecdsaP256SHA256
            ? SignedMessage.swappingHalvesByteOrder(signature.bytes) : signature.bytes
        return SignedMessage(message: Array(bytes[range]), signatureType: signature.type, signature: standardOrder)
    }

    private static func decode(
        _ bytes: [UInt8],
        file: String
    ) throws(DFUPackageError) -> (packet: SecureInitPacket, initRange: Range<Int>?) {
        var reader = ProtobufReader(bytes, range: bytes.indices, file: file)
        var unsigned: (command: Command, initRange: Range<Int>?)?
        var signed: (command: Command, initRange: Range<Int>?, signature: Signature)?
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .lengthDelimited, field: "Packet.command")
                var message = try reader.readMessage()
                unsigned = try Command.read(&message, file: file)
            case 2:
                try reader.require(tag, is: .lengthDelimited, field: "Packet.signed_command")
                var message = try reader.readMessage()
                signed = try readSignedCommand(&message, file: file)
            default:
                try reader.skip(tag.wireType)
            }
        }
        switch (unsigned, signed) {
        case (nil, nil): throw .emptyInitPacket(file: file)
        case (.some, .some): throw .ambiguousInitPacket(file: file)
        case (.some(let unsigned), nil): return (SecureInitPacket(command: unsigned.command), unsigned.initRange)
        case (nil, .some(let signed)):
            return (SecureInitPacket(command: signed.command, signature: signed.signature), signed.initRange)
        }
    }

    private static func readSignedCommand(
        _ reader: inout ProtobufReader,
        file: String
    ) throws(DFUPackageError) -> (command: Command, initRange: Range<Int>?, signature: Signature) {
        var command: (command: Command, initRange: Range<Int>?)?
        var type: SignatureType?
        var bytes: [UInt8]?
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .lengthDelimited, field: "SignedCommand.command")
                var message = try reader.readMessage()
                command = try Command.read(&message, file: file)
            case 2:
                try reader.require(tag, is: .varint, field: "SignedCommand.signature_type")
                type = try reader.readEnum(SignatureType.self, field: "SignedCommand.signature_type")
            case 3:
                try reader.require(tag, is: .lengthDelimited, field: "SignedCommand.signature")
                bytes = try reader.readBytes()
            default:
                try reader.skip(tag.wireType)
            }
        }
        guard let command else { throw .missingField(file: file, field: "SignedCommand.command") }
        guard let type else { throw .missingField(file: file, field: "SignedCommand.signature_type") }
        guard let bytes else { throw .missingField(file: file, field: "SignedCommand.signature") }
        return (command.command, command.initRange, Signature(type: type, bytes: bytes))
    }
}

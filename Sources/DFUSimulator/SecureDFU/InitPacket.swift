/// A decoded Secure DFU init packet (`dfu.Packet` from `dfu-cc.proto`), as much as the bootloader reads.
///
/// The simulator decodes init packets itself, independently of the DFUPackage module, so the two can check
/// each other.
struct InitPacket: Equatable {
    enum Signature: Equatable {
        case unsigned
        case signed(type: UInt32, bytes: [UInt8])
    }

    var command: InitCommand
    /// The serialized InitCommand: what a signature covers.
    var initCommandBytes: [UInt8]
    var signature: Signature
}

/// `dfu.InitCommand`, with proto2 presence kept as optionals.
struct InitCommand: Equatable {
    struct Hash: Equatable {
        var type: UInt32
        var bytes: [UInt8]
    }

    var fwVersion: UInt32?
    var hwVersion: UInt32?
    var sdReq: [UInt32] = []
    var type: UInt32?
    var sdSize: UInt32?
    var blSize: UInt32?
    var appSize: UInt32?
    var hash: Hash?
    var isDebug: Bool?
    var bootValidationCount = 0
}

/// Why an init packet could not be decoded (`pb_decode` failing, or the checks around it in
/// `stored_init_cmd_decode`).
///
/// The bootloader answers all of them with 0x05 (invalid object).
enum InitPacketDecodingError: Error, Equatable, CustomStringConvertible {
    case truncated
    case malformedVarint
    case unsupportedWireType(UInt64)
    case missingRequiredField(String)
    case fieldTooLong(String)
    case noInitCommand
    case commandAndSignedCommand
    case repeatedInitCommand

    var description: String {
        switch self {
        case .truncated: "init packet is truncated"
        case .malformedVarint: "init packet has a malformed varint"
        case .unsupportedWireType(let type): "init packet uses wire type \(type)"
        case .missingRequiredField(let name): "init packet lacks required field \(name)"
        case .fieldTooLong(let name): "init packet field \(name) exceeds its nanopb size"
        case .noInitCommand: "init packet holds no init command"
        case .commandAndSignedCommand: "init packet holds both command and signed_command"
        case .repeatedInitCommand: "init packet holds more than one init command"
        }
    }
}

/// Limits from the SDK 15 `dfu-cc.options` nanopb sizes.
private enum NanopbLimits {
    static let hashBytes = 32
    static let signatureBytes = 64
    static let sdReqCount = 16
    static let bootValidationCount = 3
    static let bootValidationBytes = 64
}

extension InitPacket {
    /// Decodes a `.dat` file's bytes.
    ///
    /// - Parameter bytes: The command object as received.
    /// - Throws: ``InitPacketDecodingError`` naming the first problem.
    init(decoding bytes: [UInt8]) throws(InitPacketDecodingError) {
        var reader = ProtobufReader(bytes[...])
        var unsignedCommand: ArraySlice<UInt8>?
        var signedCommand: ArraySlice<UInt8>?
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 2): unsignedCommand = try reader.lengthDelimited()
            case (2, 2): signedCommand = try reader.lengthDelimited()
            default: try reader.skip(wire)
            }
        }
        if unsignedCommand != nil && signedCommand != nil { throw .commandAndSignedCommand }
        if let signedCommand {
            var inner = ProtobufReader(signedCommand)
            var command: ArraySlice<UInt8>?
            var signatureType: UInt32?
            var signature: ArraySlice<UInt8>?
            while let (field, wire) = try inner.nextField() {
                switch (field, wire) {
                case (1, 2): command = try inner.lengthDelimited()
                case (2, 0): signatureType = UInt32(truncatingIfNeeded: try inner.varint())
                case (3, 2): signature = try inner.lengthDelimited()
                default: try inner.skip(wire)
                }
            }
            guard let command else { throw .missingRequiredField("SignedCommand.command") }
            guard let signatureType else { throw .missingRequiredField("SignedCommand.signature_type") }
            guard let signature else { throw .missingRequiredField("SignedCommand.signature") }
            guard signature.count <= NanopbLimits.signatureBytes else { throw .fieldTooLong("signature") }
            let initBytes = try Self.initCommandBytes(in: command)
            self.init(
                command: try InitCommand(decoding: initBytes),
                initCommandBytes: Array(initBytes),
                signature: .signed(type: signatureType, bytes: Array(signature))
            )
        } else if let unsignedCommand {
            let initBytes = try Self.initCommandBytes(in: unsignedCommand)
            self.init(
                command: try InitCommand(decoding: initBytes),
                initCommandBytes: Array(initBytes),
                signature: .unsigned
            )
        } else {
            throw .noInitCommand
        }
    }

    /// The bytes of `Command.init` (field 2) inside a serialized `dfu.Command`.
    private static func initCommandBytes(
        in command: ArraySlice<UInt8>
    ) throws(InitPacketDecodingError) -> ArraySlice<UInt8> {
        var reader = ProtobufReader(command)
        var initBytes: ArraySlice<UInt8>?
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (2, 2):
                if initBytes != nil { throw .repeatedInitCommand }
                initBytes = try reader.lengthDelimited()
            case (3, 2):
                let reset = try reader.lengthDelimited()
                var resetReader = ProtobufReader(reset)
                var hasTimeout = false
                while let (resetField, resetWire) = try resetReader.nextField() {
                    if resetField == 1 && resetWire == 0 { hasTimeout = true }
                    try resetReader.skip(resetWire)
                }
                if !hasTimeout { throw .missingRequiredField("ResetCommand.timeout") }
            default: try reader.skip(wire)
            }
        }
        guard let initBytes else { throw .noInitCommand }
        return initBytes
    }
}

extension InitCommand {
    /// Decodes a serialized `dfu.InitCommand`.
    ///
    /// - Parameter bytes: The message bytes.
    /// - Throws: ``InitPacketDecodingError``.
    init(decoding bytes: ArraySlice<UInt8>) throws(InitPacketDecodingError) {
        var reader = ProtobufReader(bytes)
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 0): fwVersion = try reader.uint32()
            case (2, 0): hwVersion = try reader.uint32()
            case (3, 0): sdReq.append(try reader.uint32())
            case (3, 2):
                var packed = ProtobufReader(try reader.lengthDelimited())
                while !packed.isAtEnd { sdReq.append(try packed.uint32()) }
            case (4, 0): type = try reader.uint32()
            case (5, 0): sdSize = try reader.uint32()
            case (6, 0): blSize = try reader.uint32()
            case (7, 0): appSize = try reader.uint32()
            case (8, 2): hash = try Self.decodeHash(try reader.lengthDelimited())
            case (9, 0): isDebug = try reader.varint() != 0
            case (10, 2):
                try Self.checkBootValidation(try reader.lengthDelimited())
                bootValidationCount += 1
            default: try reader.skip(wire)
            }
        }
        if sdReq.count > NanopbLimits.sdReqCount { throw .fieldTooLong("sd_req") }
        if bootValidationCount > NanopbLimits.bootValidationCount { throw .fieldTooLong("boot_validation") }
    }

    private static func decodeHash(_ bytes: ArraySlice<UInt8>) throws(InitPacketDecodingError) -> Hash {
        var reader = ProtobufReader(bytes)
        var type: UInt32?
        var digest: ArraySlice<UInt8>?
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 0): type = try reader.uint32()
            case (2, 2): digest = try reader.lengthDelimited()
            default: try reader.skip(wire)
            }
        }
        guard let type else { throw .missingRequiredField("Hash.hash_type") }
        guard let digest else { throw .missingRequiredField("Hash.hash") }
        guard digest.count <= NanopbLimits.hashBytes else { throw .fieldTooLong("hash") }
        return Hash(type: type, bytes: Array(digest))
    }

    private static func checkBootValidation(_ bytes: ArraySlice<UInt8>) throws(InitPacketDecodingError) {
        var reader = ProtobufReader(bytes)
        var hasType = false
        var hasBytes = false
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 0):
                _ = try reader.varint()
                hasType = true
            case (2, 2):
                guard try reader.lengthDelimited().count <= NanopbLimits.bootValidationBytes else {
                    throw .fieldTooLong("boot_validation.bytes")
                }
                hasBytes = true
            default: try reader.skip(wire)
            }
        }
        if !hasType { throw .missingRequiredField("BootValidation.type") }
        if !hasBytes { throw .missingRequiredField("BootValidation.bytes") }
    }
}

/// Reads protobuf wire format: varints (wire type 0), 64-bit (1), length-delimited (2) and 32-bit (5).
struct ProtobufReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func varint() throws(InitPacketDecodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.first {
            bytes = bytes.dropFirst()
            guard shift < 64 else { throw .malformedVarint }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw .truncated
    }

    /// A uint32 field; nanopb truncates wider varints.
    mutating func uint32() throws(InitPacketDecodingError) -> UInt32 {
        UInt32(truncatingIfNeeded: try varint())
    }

    mutating func nextField() throws(InitPacketDecodingError) -> (Int, UInt64)? {
        if bytes.isEmpty { return nil }
        let key = try varint()
        return (Int(truncatingIfNeeded: key >> 3), key & 0x7)
    }

    mutating func lengthDelimited() throws(InitPacketDecodingError) -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(bytes.count) else { throw .truncated }
        let value = bytes.prefix(Int(length))
        bytes = bytes.dropFirst(Int(length))
        return value
    }

    mutating func skip(_ wireType: UInt64) throws(InitPacketDecodingError) {
        switch wireType {
        case 0: _ = try varint()
        case 1: try skipBytes(8)
        case 2: _ = try lengthDelimited()
        case 5: try skipBytes(4)
        default: throw .unsupportedWireType(wireType)
        }
    }

    private mutating func skipBytes(_ count: Int) throws(InitPacketDecodingError) {
        guard bytes.count >= count else { throw .truncated }
        bytes = bytes.dropFirst(count)
    }
}

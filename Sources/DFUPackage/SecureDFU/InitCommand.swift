import Checksums

/// `dfu.InitCommand` of `dfu-cc.proto`: what a Secure DFU bootloader checks before accepting an image.
///
/// Property names follow the proto fields (`fw_version` is ``fwVersion``). proto2 presence is kept: an optional
/// field that is nil is left out when encoding, and one that is present is written even when it holds zero, as
/// nrfutil does (the bootloader tests `has_type`, `has_app_size`, …). Repeated fields are absent when empty.
/// Unknown fields are skipped when decoding and not kept. A scalar field that appears twice keeps the last value;
/// a repeated embedded `hash` replaces rather than merges (nrfutil never writes either).
package struct InitCommand: Sendable, Equatable {
    /// `dfu.Hash`: a digest of the image.
    package struct Hash: Sendable, Equatable {
        /// Field 1, required: the algorithm.
        package var hashType: HashType
        /// Field 2, required, at most 32 bytes: the digest **byte-reversed** (least significant byte first).
        ///
        /// nrfutil stores SHA-256 of the `.bin` reversed because the bootloader's nrf_crypto backends compare
        /// little-endian digests; `digest[0]` is the last byte of the usual hex form. See ``standardOrderDigest``.
        package var hash: [UInt8]

        /// Creates a hash from its wire fields.
        ///
        /// - Parameters:
        ///   - hashType: The algorithm.
        ///   - hash: The digest in stored (byte-reversed) order.
        package init(hashType: HashType, hash: [UInt8]) {
            self.hashType = hashType
            self.hash = hash
        }

        /// Creates the SHA-256 hash of `image` in the byte-reversed order nrfutil stores.
        ///
        /// - Parameter image: The firmware `.bin`.
        package init(sha256Of image: [UInt8]) {
            self.init(hashType: .sha256, hash: SHA256.hash(image).reversed())
        }

        /// The digest in the usual order (most significant byte first), as `sha256sum` prints it and as a
        /// verifier compares it with a digest it computes.
        package var standardOrderDigest: [UInt8] { hash.reversed() }
    }

    /// `dfu.BootValidation` (nrfutil 5.0+, SDK 15.3+; max 3 per command): how the bootloader checks the image at
    /// every boot.
    package struct BootValidation: Sendable, Equatable {
        /// Field 1, required.
        package var type: ValidationType
        /// Field 2, required, at most 64 bytes: empty for CRC and SHA-256; for ECDSA a signature over the image
        /// (for an SD+BL image, over the SoftDevice part) with r and s each little-endian.
        package var bytes: [UInt8]

        /// Creates a boot validation entry.
        ///
        /// - Parameters:
        ///   - type: The check.
        ///   - bytes: Its data, empty except for ECDSA.
        package init(type: ValidationType, bytes: [UInt8] = []) {
            self.type = type
            self.bytes = bytes
        }
    }

    /// Field 1, `uint32`: the image version; the bootloader compares it for downgrade protection.
    package var fwVersion: UInt32?
    /// Field 2, `uint32`: must equal the bootloader's hardware version (52 for nRF52 in Nordic's examples).
    package var hwVersion: UInt32?
    /// Field 3, repeated packed `uint32`: accepted SoftDevice FWIDs; 0x00 means "no SoftDevice needed".
    package var sdReq: [UInt32]
    /// Field 4, `FwType`.
    package var type: FirmwareType?
    /// Field 5, `uint32`: SoftDevice bytes in the image.
    package var sdSize: UInt32?
    /// Field 6, `uint32`: bootloader bytes in the image.
    package var blSize: UInt32?
    /// Field 7, `uint32`: application bytes in the image.
    package var appSize: UInt32?
    /// Field 8, `Hash`.
    package var hash: Hash?
    /// Field 9, `bool`, default false: debug bootloaders skip version checks when true.
    package var isDebug: Bool?
    /// Field 10, repeated `BootValidation` (nrfutil 5.0+).
    package var bootValidation: [BootValidation]

    /// Creates a command from its fields; nil leaves a field out.
    ///
    /// - Parameters:
    ///   - fwVersion: Field 1.
    ///   - hwVersion: Field 2.
    ///   - sdReq: Field 3.
    ///   - type: Field 4.
    ///   - sdSize: Field 5.
    ///   - blSize: Field 6.
    ///   - appSize: Field 7.
    ///   - hash: Field 8.
    ///   - isDebug: Field 9.
    ///   - bootValidation: Field 10.
    package init(
        fwVersion: UInt32? = nil,
        hwVersion: UInt32? = nil,
        sdReq: [UInt32] = [],
        type: FirmwareType? = nil,
        sdSize: UInt32? = nil,
        blSize: UInt32? = nil,
        appSize: UInt32? = nil,
        hash: Hash? = nil,
        isDebug: Bool? = nil,
        bootValidation: [BootValidation] = []
    ) {
        self.fwVersion = fwVersion
        self.hwVersion = hwVersion
        self.sdReq = sdReq
        self.type = type
        self.sdSize = sdSize
        self.blSize = blSize
        self.appSize = appSize
        self.hash = hash
        self.isDebug = isDebug
        self.bootValidation = bootValidation
    }

    /// Decodes a serialized `InitCommand`.
    ///
    /// - Parameters:
    ///   - bytes: The message bytes.
    ///   - file: Display name for errors.
    /// - Throws: `invalidInitPacket` for malformed bytes, `missingField` for an absent required field of `Hash` or
    ///   `BootValidation`.
    package init(decoding bytes: [UInt8], file: String) throws(DFUPackageError) {
        var reader = ProtobufReader(bytes, range: bytes.indices, file: file)
        try self.init(reading: &reader, file: file)
    }

    /// The serialized message, fields in number order as nrfutil (Python protobuf) writes them.
    ///
    /// This is the message a Secure DFU signature covers (see ``SignedMessage``).
    package func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        if let fwVersion { writer.appendVarintField(1, UInt64(fwVersion)) }
        if let hwVersion { writer.appendVarintField(2, UInt64(hwVersion)) }
        writer.appendPackedField(3, sdReq.map(UInt64.init))
        if let type { writer.appendVarintField(4, UInt64(type.rawValue)) }
        if let sdSize { writer.appendVarintField(5, UInt64(sdSize)) }
        if let blSize { writer.appendVarintField(6, UInt64(blSize)) }
        if let appSize { writer.appendVarintField(7, UInt64(appSize)) }
        if let hash {
            var message = ProtobufWriter()
            message.appendVarintField(1, UInt64(hash.hashType.rawValue))
            message.appendBytesField(2, hash.hash)
            writer.appendBytesField(8, message.bytes)
        }
        if let isDebug { writer.appendVarintField(9, isDebug ? 1 : 0) }
        for validation in bootValidation {
            var message = ProtobufWriter()
            message.appendVarintField(1, UInt64(validation.type.rawValue))
            message.appendBytesField(2, validation.bytes)
            writer.appendBytesField(10, message.bytes)
        }
        return writer.bytes
    }

    init(reading reader: inout ProtobufReader, file: String) throws(DFUPackageError) {
        self.init()
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .varint, field: "InitCommand.fw_version")
                fwVersion = try reader.readUInt32(field: "InitCommand.fw_version")
            case 2:
                try reader.require(tag, is: .varint, field: "InitCommand.hw_version")
                hwVersion = try reader.readUInt32(field: "InitCommand.hw_version")
            case 3:
                // Packed (as written) or one varint per element (as every parser must also accept).
                if tag.wireType == .lengthDelimited {
                    var packed = try reader.readMessage()
                    while !packed.isAtEnd { sdReq.append(try packed.readUInt32(field: "InitCommand.sd_req")) }
                } else {
                    try reader.require(tag, is: .varint, field: "InitCommand.sd_req")
                    sdReq.append(try reader.readUInt32(field: "InitCommand.sd_req"))
                }
            case 4:
                try reader.require(tag, is: .varint, field: "InitCommand.type")
                type = try reader.readEnum(FirmwareType.self, field: "InitCommand.type")
            case 5:
                try reader.require(tag, is: .varint, field: "InitCommand.sd_size")
                sdSize = try reader.readUInt32(field: "InitCommand.sd_size")
            case 6:
                try reader.require(tag, is: .varint, field: "InitCommand.bl_size")
                blSize = try reader.readUInt32(field: "InitCommand.bl_size")
            case 7:
                try reader.require(tag, is: .varint, field: "InitCommand.app_size")
                appSize = try reader.readUInt32(field: "InitCommand.app_size")
            case 8:
                try reader.require(tag, is: .lengthDelimited, field: "InitCommand.hash")
                var message = try reader.readMessage()
                hash = try Self.readHash(&message, file: file)
            case 9:
                try reader.require(tag, is: .varint, field: "InitCommand.is_debug")
                isDebug = try reader.readVarint() != 0
            case 10:
                try reader.require(tag, is: .lengthDelimited, field: "InitCommand.boot_validation")
                var message = try reader.readMessage()
                bootValidation.append(try Self.readBootValidation(&message, file: file))
            default:
                try reader.skip(tag.wireType)
            }
        }
    }

    private static func readHash(_ reader: inout ProtobufReader, file: String) throws(DFUPackageError) -> Hash {
        var hashType: HashType?
        var hash: [UInt8]?
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .varint, field: "Hash.hash_type")
                hashType = try reader.readEnum(HashType.self, field: "Hash.hash_type")
            case 2:
                try reader.require(tag, is: .lengthDelimited, field: "Hash.hash")
                hash = try reader.readBytes()
            default:
                try reader.skip(tag.wireType)
            }
        }
        guard let hashType else { throw .missingField(file: file, field: "Hash.hash_type") }
        guard let hash else { throw .missingField(file: file, field: "Hash.hash") }
        return Hash(hashType: hashType, hash: hash)
    }

    private static func readBootValidation(
        _ reader: inout ProtobufReader,
        file: String
    ) throws(DFUPackageError) -> BootValidation {
        var type: ValidationType?
        var bytes: [UInt8]?
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .varint, field: "BootValidation.type")
                type = try reader.readEnum(ValidationType.self, field: "BootValidation.type")
            case 2:
                try reader.require(tag, is: .lengthDelimited, field: "BootValidation.bytes")
                bytes = try reader.readBytes()
            default:
                try reader.skip(tag.wireType)
            }
        }
        guard let type else { throw .missingField(file: file, field: "BootValidation.type") }
        guard let bytes else { throw .missingField(file: file, field: "BootValidation.bytes") }
        return BootValidation(type: type, bytes: bytes)
    }
}

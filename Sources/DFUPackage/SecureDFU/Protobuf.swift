/// Protobuf wire types (protobuf encoding guide, "Message Structure").
enum WireType: UInt8 {
    /// int32, uint32, bool, enum: a base-128 varint.
    case varint = 0
    /// fixed64, double: 8 bytes little-endian.
    case fixed64 = 1
    /// bytes, string, embedded message, packed repeated: a varint length, then that many bytes.
    case lengthDelimited = 2
    /// fixed32, float: 4 bytes little-endian.
    case fixed32 = 5
}

/// Reads protobuf fields from a range of a byte array, reporting positions as offsets into the whole array.
struct ProtobufReader {
    private let bytes: [UInt8]
    private let file: String
    private let end: Int
    /// The offset of the next unread byte.
    private(set) var position: Int

    /// Creates a reader of `range` inside `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The whole `.dat` file, so that error offsets are file offsets.
    ///   - range: The message's bytes.
    ///   - file: Display name for errors.
    init(_ bytes: [UInt8], range: Range<Int>, file: String) {
        self.bytes = bytes
        self.file = file
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// Whether the whole message has been read.
    var isAtEnd: Bool { position >= end }

    /// Reads the next field's tag.
    ///
    /// - Returns: The field number, its wire type, and the offset where the tag started.
    mutating func readTag() throws(DFUPackageError) -> (field: UInt64, wireType: WireType, offset: Int) {
        let offset = position
        let tag = try readVarint()
        let number = tag >> 3
        guard number >= 1, number <= 0x1FFF_FFFF else { throw error(.invalidFieldNumber(number), at: offset) }
        let rawWireType = UInt8(tag & 7)
        guard let wireType = WireType(rawValue: rawWireType) else {
            throw error(.unsupportedWireType(rawWireType), at: offset)
        }
        return (number, wireType, offset)
    }

    /// Reads a base-128 varint of at most 10 bytes.
    mutating func readVarint() throws(DFUPackageError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw error(.truncated, at: end) }
            let byte = bytes[position]
            position += 1
            // The tenth byte holds only bit 63: anything more overflows 64 bits or continues past 10 bytes.
            if shift == 63, byte > 1 { throw error(.overlongVarint, at: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Reads a varint that must fit a `uint32`.
    ///
    /// - Parameter field: The field's name, for the error.
    /// - Returns: The value.
    /// - Throws: `invalidInitPacket` (truncated, overlong, out of range).
    mutating func readUInt32(field: String) throws(DFUPackageError) -> UInt32 {
        let start = position
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value) else {
            throw error(.valueOutOfRange(field: field, value: value), at: start)
        }
        return narrow
    }

    /// Reads a varint that must be one of the raw values of `E`.
    ///
    /// - Parameters:
    ///   - type: The enum type.
    ///   - field: The field's name, for the error.
    /// - Returns: The case.
    /// - Throws: `invalidInitPacket` (truncated, overlong, unknown enum value).
    mutating func readEnum<E: RawRepresentable<UInt32>>(_ type: E.Type, field: String) throws(DFUPackageError) -> E {
        let start = position
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value), let result = E(rawValue: narrow) else {
            throw error(.unknownEnumValue(field: field, value: value), at: start)
        }
        return result
    }

    /// Reads the length of a length-delimited field and returns the range of its payload, skipping past it.
    mutating func readLengthDelimited() throws(DFUPackageError) -> Range<Int> {
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw error(.truncated, at: end) }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    /// Reads a length-delimited field's payload as bytes.
    mutating func readBytes() throws(DFUPackageError) -> [UInt8] {
        Array(bytes[try readLengthDelimited()])
    }

    /// Returns a reader for the embedded message that comes next.
    mutating func readMessage() throws(DFUPackageError) -> ProtobufReader {
        ProtobufReader(bytes, range: try readLengthDelimited(), file: file)
    }

    /// Skips a field of an unknown number.
    mutating func skip(_ wireType: WireType) throws(DFUPackageError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        }
    }

    /// Throws unless a known field arrived with the expected wire type.
    ///
    /// - Parameters:
    ///   - tag: The tag as read.
    ///   - expected: The wire type the schema gives the field.
    ///   - field: The field's name, for the error.
    /// - Throws: `invalidInitPacket` with `wrongWireType`.
    func require(_ tag: (field: UInt64, wireType: WireType, offset: Int), is expected: WireType, field: String)
        throws(DFUPackageError)
    {
        guard tag.wireType == expected else {
            throw error(.wrongWireType(field: field, wireType: tag.wireType.rawValue), at: tag.offset)
        }
    }

    /// Builds the error for `problem` at `offset` in this reader's file.
    func error(_ problem: InitPacketProblem, at offset: Int) -> DFUPackageError {
        .invalidInitPacket(file: file, offset: offset, problem: problem)
    }

    private mutating func advance(_ count: Int) throws(DFUPackageError) {
        guard count <= end - position else { throw error(.truncated, at: end) }
        position += count
    }
}

/// Appends protobuf fields to a byte array, in the order called.
struct ProtobufWriter {
    /// The encoded message so far.
    private(set) var bytes: [UInt8] = []

    /// Appends `value` as a base-128 varint, least significant group first.
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Appends a varint field (uint32, bool and enum fields).
    mutating func appendVarintField(_ field: UInt64, _ value: UInt64) {
        appendVarint(field << 3 | UInt64(WireType.varint.rawValue))
        appendVarint(value)
    }

    /// Appends a length-delimited field (bytes and embedded messages).
    mutating func appendBytesField(_ field: UInt64, _ payload: [UInt8]) {
        appendVarint(field << 3 | UInt64(WireType.lengthDelimited.rawValue))
        appendVarint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    /// Appends a packed repeated varint field; nothing at all when `values` is empty, as protobuf does.
    mutating func appendPackedField(_ field: UInt64, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var payload = ProtobufWriter()
        for value in values { payload.appendVarint(value) }
        appendBytesField(field, payload.bytes)
    }
}

/// A request nrfloader sends, with its CBOR body (field names from Zephyr's handlers: `os_mgmt.c`, `img_mgmt.c`,
/// `img_mgmt_state.c`).
package enum SMPRequest: Sendable, Equatable {
    /// OS echo: `{"d": text}`.
    case echo(String)
    /// OS reset: `{}`.
    case reset
    /// OS MCUmgr parameters: `{}`.
    case parameters
    /// OS bootloader info asking MCUboot's mode: `{"query": "mode"}` (answered `{"mode": n}`).
    case bootloaderMode
    /// Image state read: `{}`.
    case readImageState
    /// Image state write: `{"hash": h, "confirm": b}`; without a hash, `confirm` confirms the running image.
    case writeImageState(hash: [UInt8]?, confirm: Bool)
    /// Image upload: one chunk.
    case upload(ImageUploadChunk)
    /// Image erase: `{}` erases the secondary slot.
    case erase
    /// Image erase of one slot: `{"slot": n}` (`img_mgmt_erase`; a device without the field erases slot 1).
    case eraseSlot(Int)

    /// The command.
    package var command: SMPCommand {
        switch self {
        case .echo: .echo
        case .reset: .reset
        case .parameters: .parameters
        case .bootloaderMode: .bootloaderInfo
        case .readImageState: .readImageState
        case .writeImageState: .writeImageState
        case .upload: .upload
        case .erase, .eraseSlot: .erase
        }
    }

    /// The body.
    package var body: CBORValue {
        switch self {
        case .echo(let text): .map([CBORMapEntry("d", .text(text))])
        case .bootloaderMode: .map([CBORMapEntry("query", .text("mode"))])
        case .reset, .parameters, .readImageState, .erase: .map([])
        case .writeImageState(let hash, let confirm):
            .map((hash.map { [CBORMapEntry("hash", .bytes($0))] } ?? []) + [CBORMapEntry("confirm", .bool(confirm))])
        case .upload(let chunk): chunk.body
        case .eraseSlot(let slot): .map([CBORMapEntry("slot", .int(slot))])
        }
    }

    /// The request as a frame.
    ///
    /// - Parameters:
    ///   - sequence: The sequence number the answer will echo.
    ///   - version: The protocol version to ask in.
    /// - Returns: The frame.
    package func frame(sequence: UInt8, version: SMPVersion) -> SMPFrame {
        let command = command
        let header = SMPHeader(
            operation: command.operation, version: version, length: 0, group: command.group.rawValue,
            sequence: sequence, command: command.id)
        return SMPFrame(header: header, body: body)
    }
}

/// One image upload request (`img_mgmt_upload`): `image`, `off`, `data`, and on the first chunk `len` and `sha`.
package struct ImageUploadChunk: Sendable, Equatable {
    /// The image number (0 for the application); omitted from the body when 0, Zephyr's default.
    package var image: Int
    /// The chunk's offset in the image.
    package var offset: Int
    /// The chunk's bytes.
    package var data: [UInt8]
    /// The whole image's length: the first chunk only.
    package var length: Int?
    /// SHA-256 of the whole image (the device compares it to resume an interrupted upload): the first chunk only.
    package var sha256: [UInt8]?

    /// Creates a chunk.
    ///
    /// - Parameters:
    ///   - image: The image number.
    ///   - offset: The offset.
    ///   - data: The bytes.
    ///   - length: The image length (first chunk).
    ///   - sha256: The image's SHA-256 (first chunk).
    package init(image: Int = 0, offset: Int, data: [UInt8], length: Int? = nil, sha256: [UInt8]? = nil) {
        self.image = image
        self.offset = offset
        self.data = data
        self.length = length
        self.sha256 = sha256
    }

    /// The body, keys in the order mcumgr clients send them.
    package var body: CBORValue {
        var entries: [CBORMapEntry] = []
        if image != 0 { entries.append(CBORMapEntry("image", .int(image))) }
        if let length { entries.append(CBORMapEntry("len", .int(length))) }
        entries.append(CBORMapEntry("off", .int(offset)))
        if let sha256 { entries.append(CBORMapEntry("sha", .bytes(sha256))) }
        entries.append(CBORMapEntry("data", .bytes(data)))
        return .map(entries)
    }

    /// The encoded body's size for a chunk of `dataLength` bytes: what a chunk planner needs to fit a frame into the
    /// device's buffer.
    ///
    /// - Parameters:
    ///   - dataLength: The chunk's bytes.
    ///   - offset: The chunk's offset (its encoding grows with it).
    ///   - isFirst: Whether `len` and a 32-byte `sha` ride along.
    ///   - imageLength: The whole image's length (encoded on the first chunk).
    ///   - image: The image number.
    /// - Returns: The body's encoded size in bytes.
    package static func bodySize(dataLength: Int, offset: Int, isFirst: Bool, imageLength: Int, image: Int = 0) -> Int {
        let chunk = ImageUploadChunk(
            image: image, offset: offset, data: [], length: isFirst ? imageLength : nil,
            sha256: isFirst ? [UInt8](repeating: 0, count: 32) : nil)
        let empty = CBOREncoder().encode(chunk.body).count
        // The empty byte string's 1-byte head grows with the data's length.
        return empty - 1 + CBOREncoder.headSize(argument: dataLength) + dataLength
    }
}

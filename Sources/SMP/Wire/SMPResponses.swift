/// The typed readings of response bodies.
///
/// Each reading first looks for an error in either form: a non-zero `rc`, or `err {group, rc}` (Zephyr
/// `smp_add_cmd_err`).
package enum SMPResponse {
    /// The error a body carries, if any.
    ///
    /// - Parameter body: A response body.
    /// - Returns: The device's error, or `nil` for success (`rc` absent or 0, no `err`).
    /// - Throws: ``SMPFrameError`` when `rc` or `err` has the wrong shape.
    package static func error(in body: CBORValue) throws(SMPFrameError) -> SMPDeviceError? {
        if let err = body["err"] {
            guard case .map = err else { throw .badField(name: "err", problem: "is \(err.kindDescription), not a map") }
            let group = try integer(err, "group", in: 0...Int(UInt16.max), context: "err.group")
            let rc = try integer(err, "rc", in: Int(Int32.min)...Int(Int32.max), context: "err.rc")
            return rc == 0 ? nil : SMPDeviceError(source: .group(UInt16(group)), rc: rc)
        }
        guard body["rc"] != nil else { return nil }
        let rc = try integer(body, "rc", in: Int(Int32.min)...Int(Int32.max), context: "rc")
        return rc == 0 ? nil : SMPDeviceError(source: .mcumgr, rc: rc)
    }

    /// The integer field `key` of `map`, within `range`.
    static func integer(_ map: CBORValue, _ key: String, in range: ClosedRange<Int>, context: String? = nil)
        throws(SMPFrameError) -> Int
    {
        let name = context ?? key
        guard let value = map[key] else { throw .badField(name: name, problem: "is missing") }
        guard let text = value.integerText else {
            throw .badField(name: name, problem: "is \(value.kindDescription), not an integer")
        }
        guard let number = value.intValue, range.contains(number) else {
            throw .badField(name: name, problem: "is \(text), outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

/// The answer to MCUmgr parameters (`os_mgmt_mcumgr_params`): `{"buf_size": N, "buf_count": N}`.
package struct MCUmgrParameters: Sendable, Equatable {
    /// The size of one SMP receive buffer in bytes: the longest request frame the device takes.
    package var bufferSize: Int
    /// How many such buffers the device has: how many requests may be in flight.
    package var bufferCount: Int

    /// Creates parameters.
    ///
    /// - Parameters:
    ///   - bufferSize: The buffer size.
    ///   - bufferCount: The buffer count.
    package init(bufferSize: Int, bufferCount: Int) {
        self.bufferSize = bufferSize
        self.bufferCount = bufferCount
    }

    /// Reads a successful answer's body.
    ///
    /// - Parameter body: The body.
    /// - Throws: ``SMPFrameError`` when a field is missing or out of range.
    package init(body: CBORValue) throws(SMPFrameError) {
        bufferSize = try SMPResponse.integer(
            body, "buf_size", in: SMPHeader.size + 1...Int(UInt16.max) + SMPHeader.size)
        bufferCount = try SMPResponse.integer(body, "buf_count", in: 1...255)
    }

    /// The body a device answers with.
    package var body: CBORValue {
        .map([CBORMapEntry("buf_size", .int(bufferSize)), CBORMapEntry("buf_count", .int(bufferCount))])
    }
}

/// The answer to an image upload chunk: `{"off": N}` (plus `rc: 0` with `CONFIG_MCUMGR_SMP_LEGACY_RC_BEHAVIOUR`,
/// and `match` on the last chunk with `CONFIG_IMG_ENABLE_IMAGE_CHECK`).
package struct ImageUploadResponse: Sendable, Equatable {
    /// The offset the device expects next: the bytes it holds.
    package var offset: Int
    /// Whether the device's SHA-256 of the whole image matched the first chunk's `sha` (last chunk only, when the
    /// device checks).
    package var match: Bool?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - offset: The offset.
    ///   - match: The optional match flag.
    package init(offset: Int, match: Bool? = nil) {
        self.offset = offset
        self.match = match
    }

    /// Reads a successful answer's body.
    ///
    /// - Parameter body: The body.
    /// - Throws: ``SMPFrameError`` when `off` is missing or negative, or `match` is not a boolean.
    package init(body: CBORValue) throws(SMPFrameError) {
        offset = try SMPResponse.integer(body, "off", in: 0...Int(UInt32.max))
        switch body["match"] {
        case nil: match = nil
        case .bool(let flag): match = flag
        case let other?: throw .badField(name: "match", problem: "is \(other.kindDescription), not a boolean")
        }
    }

    /// The body a device answers with.
    package var body: CBORValue {
        .map([CBORMapEntry("off", .int(offset))] + (match.map { [CBORMapEntry("match", .bool($0))] } ?? []))
    }
}

/// One slot in an image state answer (`img_mgmt_state_encode_slot`).
package struct ImageSlotState: Sendable, Equatable {
    /// The image number (absent with one updatable image: 0).
    package var image: Int
    /// The slot, 0 (primary) or 1 (secondary).
    package var slot: Int
    /// The version, `major.minor.revision` with `.build` when the build number is not 0.
    package var version: String
    /// The SHA-256 TLV of the image in the slot.
    package var hash: [UInt8]
    /// Whether the image is bootable.
    package var isBootable: Bool
    /// Whether MCUboot will swap to it on the next reset.
    package var isPending: Bool
    /// Whether it is confirmed (no revert on reset).
    package var isConfirmed: Bool
    /// Whether it is running.
    package var isActive: Bool
    /// Whether the pending swap is permanent.
    package var isPermanent: Bool

    /// Creates a slot state.
    package init(
        image: Int = 0, slot: Int, version: String, hash: [UInt8], isBootable: Bool = true, isPending: Bool = false,
        isConfirmed: Bool = false, isActive: Bool = false, isPermanent: Bool = false
    ) {
        self.image = image
        self.slot = slot
        self.version = version
        self.hash = hash
        self.isBootable = isBootable
        self.isPending = isPending
        self.isConfirmed = isConfirmed
        self.isActive = isActive
        self.isPermanent = isPermanent
    }

    /// Reads one entry of `images`; a missing flag is false (`CONFIG_MCUMGR_GRP_IMG_FRUGAL_LIST` omits false ones).
    init(entry: CBORValue, index: Int) throws(SMPFrameError) {
        let name = "images[\(index)]"
        guard case .map = entry else {
            throw .badField(name: name, problem: "is \(entry.kindDescription), not a map")
        }
        image =
            entry["image"] == nil ? 0 : try SMPResponse.integer(entry, "image", in: 0...255, context: name + ".image")
        slot = try SMPResponse.integer(entry, "slot", in: 0...1, context: name + ".slot")
        switch entry["version"] {
        case .text(let text)?: version = text
        case nil: throw .badField(name: name + ".version", problem: "is missing")
        case let other?: throw .badField(name: name + ".version", problem: "is \(other.kindDescription), not text")
        }
        switch entry["hash"] {
        case .bytes(let bytes)?: hash = bytes
        case nil: throw .badField(name: name + ".hash", problem: "is missing")
        case let other?: throw .badField(name: name + ".hash", problem: "is \(other.kindDescription), not bytes")
        }
        func flag(_ key: String) throws(SMPFrameError) -> Bool {
            switch entry[key] {
            case nil: return false
            case .bool(let value)?: return value
            case let other?:
                throw .badField(name: "\(name).\(key)", problem: "is \(other.kindDescription), not a boolean")
            }
        }
        isBootable = try flag("bootable")
        isPending = try flag("pending")
        isConfirmed = try flag("confirmed")
        isActive = try flag("active")
        isPermanent = try flag("permanent")
    }

    /// The entry as Zephyr encodes it without the frugal list (every flag present).
    package var body: CBORValue {
        .map([
            CBORMapEntry("slot", .int(slot)), CBORMapEntry("version", .text(version)),
            CBORMapEntry("hash", .bytes(hash)),
            CBORMapEntry("bootable", .bool(isBootable)), CBORMapEntry("pending", .bool(isPending)),
            CBORMapEntry("confirmed", .bool(isConfirmed)), CBORMapEntry("active", .bool(isActive)),
            CBORMapEntry("permanent", .bool(isPermanent)),
        ])
    }

    /// The flags as mcumgr shows them: `active confirmed`, `pending permanent`, or `-`.
    package var flagsDescription: String {
        let names = [
            (isActive, "active"), (isConfirmed, "confirmed"), (isPending, "pending"), (isPermanent, "permanent"),
        ].filter(\.0).map(\.1)
        return names.isEmpty ? "-" : names.joined(separator: " ")
    }
}

/// The answer to an image state read or write: `{"images": [...], "splitStatus": 0}`.
package struct ImageStateResponse: Sendable, Equatable {
    /// The slots reported.
    package var slots: [ImageSlotState]

    /// Creates a response.
    ///
    /// - Parameter slots: The slots.
    package init(slots: [ImageSlotState]) {
        self.slots = slots
    }

    /// Reads a successful answer's body.
    ///
    /// - Parameter body: The body.
    /// - Throws: ``SMPFrameError`` when `images` is missing or an entry is malformed.
    package init(body: CBORValue) throws(SMPFrameError) {
        guard case .array(let entries)? = body["images"] else {
            throw .badField(name: "images", problem: body["images"] == nil ? "is missing" : "is not an array")
        }
        var slots: [ImageSlotState] = []
        for (index, entry) in entries.enumerated() { slots.append(try ImageSlotState(entry: entry, index: index)) }
        self.slots = slots
    }

    /// The slot of image `image` whose hash is `hash`.
    ///
    /// - Parameters:
    ///   - hash: The SHA-256 TLV.
    ///   - image: The image number.
    /// - Returns: The slot, or `nil` when no slot of that image holds that hash.
    package func slot(withHash hash: [UInt8], image: Int = 0) -> ImageSlotState? {
        slots.first { $0.hash == hash && $0.image == image }
    }

    /// The body as Zephyr encodes it (`splitStatus` 0 included, as without the frugal list).
    package var body: CBORValue {
        .map([CBORMapEntry("images", .array(slots.map(\.body))), CBORMapEntry("splitStatus", .int(0))])
    }
}

import Checksums
import MCUbootImage
public import SMP

/// A Zephyr application with MCUmgr's OS and image groups on an MCUboot bootloader (swap mode, two slots), as a
/// sans-IO machine: request frames in, answer frames and a reboot flag out.
///
/// It follows Zephyr's handlers as read in the source (`img_mgmt.c`, `zephyr_img_mgmt.c`, `img_mgmt_state.c`,
/// `os_mgmt.c`, `smp.c`), independently of ``SMPUploader``, so that it serves as an oracle:
/// - answers are zcbor's indefinite-length maps; errors are `err {group, rc}` for v2 requests and the translated
///   `rc` for v1 (`img_mgmt_translate_error_code`); an unknown group or command gets `{"rc": 8}`;
/// - upload: `off` is required; the first chunk needs `len`, at least 32 bytes and the image magic; a first chunk
///   whose `sha` matches the upload in progress is answered with the current offset (resume); a chunk at another
///   offset is answered with the expected offset; an error resets the upload;
/// - state: test on the running slot is refused with 33, a second pending request with 28; a successful write is
///   answered with the state read;
/// - MCUboot: the secondary slot's trailer (magic, `image_ok`) decides the swap on boot (test or permanent); a
///   tested image that was not confirmed is swapped back on the next boot; an image whose SHA-256 TLV does not
///   match is erased instead of booted.
public struct SimulatedSMPDevice: Sendable {
    /// What the device does after a request.
    public struct Output: Sendable, Equatable {
        /// The answer frame, `nil` when the request gets none (a stalled device).
        public var answer: [UInt8]?
        /// Whether the device resets after sending the answer (OS reset).
        public var resetsAfterAnswer: Bool
    }

    /// The device's options.
    public struct Configuration: Sendable, Equatable {
        /// The size of each image slot in bytes; a padded image (`imgtool --pad`, `--confirm`) must match it.
        public var slotSize: Int
        /// Whether the device answers MCUmgr parameters (`CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS`; off in Zephyr, so rc 8).
        public var answersParameters = false
        /// `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` and `_COUNT`, reported when ``answersParameters`` is set.
        public var parameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4)

        /// Creates a configuration.
        ///
        /// - Parameter slotSize: The slot size.
        public init(slotSize: Int) {
            self.slotSize = slotSize
        }
    }

    /// The device's options.
    public let configuration: Configuration
    /// The primary slot (slot 0), the running image.
    public private(set) var primary: [UInt8]
    /// The secondary slot (slot 1), where uploads go.
    public private(set) var secondary: [UInt8]
    /// Boots so far, the first power-on included.
    public private(set) var bootCount = 1
    /// Boots that swapped a new image into the primary slot (test or permanent), reverts not counted.
    public private(set) var swapCount = 0
    /// What the device did, one line per event, for tests and `--verbose`.
    public private(set) var log: [String] = []

    /// The upload in progress (`g_img_mgmt_state`), lost on reboot.
    private var upload: UploadState?
    /// A respond@ fault: the next request with this image-group command id is answered with this rc.
    private var forcedAnswers: [(id: UInt8, rc: Int)] = []

    private struct UploadState: Sendable {
        var offset: Int
        var size: Int
        var sha: [UInt8]
    }

    /// Creates a device running `running` (an MCUboot image placed in the primary slot, confirmed).
    ///
    /// - Parameters:
    ///   - configuration: The device's options.
    ///   - running: The image in slot 0.
    public init(configuration: Configuration, running: [UInt8]) {
        precondition(running.count <= configuration.slotSize, "the running image is larger than a slot")
        self.configuration = configuration
        primary = running + [UInt8](repeating: 0xFF, count: configuration.slotSize - running.count)
        secondary = [UInt8](repeating: 0xFF, count: configuration.slotSize)
        Trailer.write(&primary, imageOK: true, copyDone: true)
    }

    /// Forces the answer to the next image-group request with command `id` (the `respond@ID:RC` fault).
    ///
    /// - Parameters:
    ///   - id: The image-group command id.
    ///   - rc: The image-group error code to answer with.
    public mutating func forceAnswer(toCommand id: UInt8, rc: Int) {
        forcedAnswers.append((id, rc))
    }

    // MARK: - Requests

    /// Handles one request frame.
    ///
    /// - Parameter bytes: The request.
    /// - Returns: The answer and whether the device resets after it.
    public mutating func receive(_ bytes: [UInt8]) -> Output {
        guard let frame = try? SMPFrame(decoding: bytes) else {
            // Zephyr drops a request it cannot parse (smp_process_request_packet returns an error, no answer).
            log.append("dropped a malformed request of \(bytes.count) bytes")
            return Output(answer: nil, resetsAfterAnswer: false)
        }
        let header = frame.header
        var resets = false
        let body: Answer
        switch (header.group, header.command, header.operation) {
        case (SMPGroup.os.rawValue, 0, .write):
            body = .ok(.map([CBORMapEntry("r", frame.body["d"] ?? .text(""))]))
        case (SMPGroup.os.rawValue, 5, .write):
            log.append("reset requested")
            resets = true
            body = .ok(.map([]))
        case (SMPGroup.os.rawValue, 6, .read) where configuration.answersParameters:
            body = .ok(configuration.parameters.body)
        case (SMPGroup.image.rawValue, let id, _)
        where (id == 0 || id == 1) && forcedAnswers.contains(where: { $0.id == id }):
            let index = forcedAnswers.firstIndex { $0.id == id } ?? 0
            let rc = forcedAnswers.remove(at: index).rc
            log.append("answered image command \(id) with rc \(rc) (fault)")
            upload = nil
            body = .imageError(rc)
        case (SMPGroup.image.rawValue, 0, .read):
            body = .ok(stateBody)
        case (SMPGroup.image.rawValue, 0, .write):
            body = writeState(frame.body)
        case (SMPGroup.image.rawValue, 1, .write):
            body = uploadChunk(frame.body)
        default:
            body = .mcumgrError(MCUmgrError.notSupported.rawValue)
        }
        let answer = SMPFrame(
            header: SMPHeader(
                operation: header.operation.response, version: header.version, length: 0, group: header.group,
                sequence: header.sequence, command: header.command),
            body: body.encoded(version: header.version))
        return Output(answer: answer.encoded(style: .indefinite), resetsAfterAnswer: resets)
    }

    private enum Answer {
        case ok(CBORValue)
        case imageError(Int)
        case mcumgrError(Int)

        func encoded(version: SMPVersion) -> CBORValue {
            switch self {
            case .ok(let body): body
            case .mcumgrError(let rc): .map([CBORMapEntry("rc", .int(rc))])
            case .imageError(let rc):
                version == .v2
                    ? .map([
                        CBORMapEntry(
                            "err",
                            .map([
                                CBORMapEntry("group", .int(Int(SMPGroup.image.rawValue))), CBORMapEntry("rc", .int(rc)),
                            ]))
                    ])
                    : .map([CBORMapEntry("rc", .int(SimulatedSMPDevice.translated(rc)))])
            }
        }
    }

    /// `img_mgmt_translate_error_code` (`img_mgmt.c`): an image-group code as a v1 client sees it.
    static func translated(_ rc: Int) -> Int {
        switch ImageManagementError(rawValue: rc) {
        case .noImage, .noTLVs: MCUmgrError.noEntry.rawValue
        case .noFreeSlot, .currentVersionIsNewer, .imageAlreadyPending: MCUmgrError.badState.rawValue
        case .noFreeMemory: MCUmgrError.noMemory.rawValue
        case .invalidSlot, .invalidPageOffset, .invalidOffset, .invalidLength, .invalidImageHeader, .invalidHash,
            .invalidFlashAddress:
            MCUmgrError.invalidValue.rawValue
        default: MCUmgrError.unknown.rawValue
        }
    }

    // MARK: - Upload (img_mgmt_upload, img_mgmt_upload_inspect)

    private mutating func uploadChunk(_ body: CBORValue) -> Answer {
        guard let offset = body["off"]?.intValue, offset >= 0 else {
            upload = nil
            return .imageError(ImageManagementError.invalidOffset.rawValue)
        }
        guard case .bytes(let data)? = body["data"] ?? .bytes([]) else {
            return .mcumgrError(MCUmgrError.invalidValue.rawValue)
        }
        if offset == 0 {
            guard data.count >= MCUbootImageHeader.size else {
                upload = nil
                return .imageError(ImageManagementError.invalidImageHeader.rawValue)
            }
            guard let size = body["len"]?.intValue, size > 0 else {
                upload = nil
                return .imageError(ImageManagementError.invalidLength.rawValue)
            }
            guard data.starts(with: [0x3D, 0xB8, 0xF3, 0x96]) else {
                upload = nil
                return .imageError(ImageManagementError.invalidImageHeaderMagic.rawValue)
            }
            var sha: [UInt8] = []
            if case .bytes(let given)? = body["sha"] { sha = given }
            guard sha.count <= 32 else { return .imageError(ImageManagementError.invalidHash.rawValue) }
            if let upload, !sha.isEmpty, upload.sha == sha {
                log.append("upload resumed at offset \(upload.offset)")
                return .ok(.map([CBORMapEntry("off", .int(upload.offset))]))
            }
            guard !isSecondaryInUse else {
                upload = nil
                return .imageError(ImageManagementError.noFreeSlot.rawValue)
            }
            guard size <= configuration.slotSize else {
                upload = nil
                return .imageError(ImageManagementError.imageTooLarge.rawValue)
            }
            secondary = [UInt8](repeating: 0xFF, count: configuration.slotSize)
            upload = UploadState(offset: 0, size: size, sha: sha)
            log.append("upload started: \(size) bytes, secondary slot erased")
        } else {
            guard let current = upload, offset == current.offset else {
                // "Invalid offset. Drop the data, and respond with the offset we're expecting data for."
                return .ok(.map([CBORMapEntry("off", .int(upload?.offset ?? 0))]))
            }
            guard offset + data.count <= current.size else {
                upload = nil
                return .imageError(ImageManagementError.imageDataOverrun.rawValue)
            }
        }
        guard var current = upload else { preconditionFailure("upload state vanished") }
        secondary.replaceSubrange(current.offset..<current.offset + data.count, with: data)
        current.offset += data.count
        var answer = [CBORMapEntry("off", .int(current.offset))]
        if current.offset == current.size {
            log.append("upload complete: \(current.size) bytes")
            upload = nil
            // CONFIG_IMG_ENABLE_IMAGE_CHECK: the last answer says whether the data's SHA-256 matches `sha`.
            if current.sha.count == 32 {
                answer.append(CBORMapEntry("match", .bool(SHA256.hash(secondary.prefix(current.size)) == current.sha)))
            }
        } else {
            upload = current
        }
        return .ok(.map(answer))
    }

    // MARK: - State (img_mgmt_state.c)

    /// MCUboot's swap type for the next boot (`boot_swap_type`, simplified to the states this device reaches).
    private enum SwapType {
        case none
        case test
        case permanent
        case revert
    }

    private var swapType: SwapType {
        let secondaryTrailer = Trailer(secondary)
        if secondaryTrailer.hasMagic { return secondaryTrailer.imageOK ? .permanent : .test }
        let primaryTrailer = Trailer(primary)
        if primaryTrailer.hasMagic, primaryTrailer.copyDone, !primaryTrailer.imageOK { return .revert }
        return .none
    }

    /// `img_mgmt_slot_in_use(1)`: a pending or revert slot may not be uploaded to.
    private var isSecondaryInUse: Bool { swapType != .none }

    /// The image state answer (`img_mgmt_state_read`).
    private var stateBody: CBORValue {
        let type = swapType
        var slots: [ImageSlotState] = []
        if let image = Self.slotImage(primary) {
            slots.append(
                ImageSlotState(
                    slot: 0, version: image.header.version.smpDescription, hash: image.storedHash ?? [],
                    isBootable: image.header.flags & 0x10 == 0, isConfirmed: type != .revert, isActive: true))
        }
        if let image = Self.slotImage(secondary) {
            slots.append(
                ImageSlotState(
                    slot: 1, version: image.header.version.smpDescription, hash: image.storedHash ?? [],
                    isBootable: image.header.flags & 0x10 == 0, isPending: type == .test || type == .permanent,
                    isConfirmed: type == .revert, isPermanent: type == .permanent))
        }
        return ImageStateResponse(slots: slots).body
    }

    /// The image in a slot as `img_mgmt_read_info` finds it: a header, TLVs and a SHA-256 TLV; `nil` otherwise.
    static func slotImage(_ slot: [UInt8]) -> MCUbootImage? {
        guard let image = try? MCUbootImage(bytes: slot, file: "slot"), image.storedHash != nil else { return nil }
        return image
    }

    private mutating func writeState(_ body: CBORValue) -> Answer {
        var confirm = false
        if let value = body["confirm"] {
            guard case .bool(let flag) = value else { return .mcumgrError(MCUmgrError.invalidValue.rawValue) }
            confirm = flag
        }
        var slot: Int
        switch body["hash"] {
        case nil:
            guard confirm else { return .imageError(ImageManagementError.invalidHash.rawValue) }
            slot = 0
        case .bytes(let hash)? where hash.count == 32:
            if Self.slotImage(primary)?.storedHash == hash {
                slot = 0
            } else if Self.slotImage(secondary)?.storedHash == hash {
                slot = 1
            } else {
                return .imageError(ImageManagementError.hashNotFound.rawValue)
            }
        default:
            return .imageError(ImageManagementError.invalidHash.rawValue)
        }
        // img_mgmt_set_next_boot_slot, swap mode.
        let type = swapType
        if !confirm && slot == 0 { return .imageError(ImageManagementError.settingTestToActiveDenied.rawValue) }
        switch type {
        case .test:
            if !confirm && slot == 1 { return .ok(stateBody) }
            return .imageError(ImageManagementError.imageAlreadyPending.rawValue)
        case .permanent, .none:
            let nextBoot = type == .permanent ? 1 : 0
            if confirm && slot == nextBoot { return .ok(stateBody) }
            if (slot == 0 && nextBoot != 0) || (!confirm && slot == 1 && slot == nextBoot) {
                return .imageError(ImageManagementError.imageAlreadyPending.rawValue)
            }
        case .revert:
            if confirm && slot == 1 { return .ok(stateBody) }
            if !confirm { return .imageError(ImageManagementError.imageAlreadyPending.rawValue) }
        }
        if slot == 0 {
            Trailer.write(&primary, imageOK: true, copyDone: true)
            log.append("running image confirmed")
        } else {
            Trailer.write(&secondary, imageOK: confirm, copyDone: false)
            log.append("slot 1 marked \(confirm ? "pending permanent" : "pending test")")
        }
        return .ok(stateBody)
    }

    // MARK: - Boot (MCUboot)

    /// Resets: the upload in progress is lost and MCUboot swaps as the trailers ask.
    public mutating func reboot() {
        bootCount += 1
        upload = nil
        switch swapType {
        case .none:
            log.append("boot \(bootCount): no swap")
        case .test, .permanent:
            let isPermanent = swapType == .permanent
            guard let image = Self.slotImage(secondary), (try? image.verifiedHash()) != nil else {
                secondary = [UInt8](repeating: 0xFF, count: configuration.slotSize)
                log.append("boot \(bootCount): secondary image invalid, erased")
                return
            }
            swap()
            swapCount += 1
            Trailer.write(&primary, imageOK: isPermanent, copyDone: true)
            log.append("boot \(bootCount): swapped to \(image.header.version) (\(isPermanent ? "permanent" : "test"))")
        case .revert:
            swap()
            Trailer.write(&primary, imageOK: true, copyDone: true)
            log.append("boot \(bootCount): test image not confirmed, reverted")
        }
    }

    private mutating func swap() {
        (primary, secondary) = (secondary, primary)
        Trailer.erase(&primary)
        Trailer.erase(&secondary)
    }

    /// How long the next boot takes in MCUboot.
    ///
    /// For a swap (or revert), every sector of the image is moved three times
    /// (swap using scratch), at nRF52's flash timings (page erase 85 ms per 4 KiB, 41 µs per 32-bit word: nRF52832
    /// PS §4.3). Read it before ``reboot()``.
    public var nextBootSwapDuration: Duration {
        guard swapType != .none, let image = Self.slotImage(swapType == .revert ? primary : secondary) else {
            return .zero
        }
        let end =
            image.header.headerSize + image.header.imageSize + image.header.protectedTLVSize
            + image.tlvs.totalSize
        let pages = (end + 4095) / 4096
        return (.milliseconds(85) + .microseconds(41 * 1024)) * (pages * 3)
    }
}

/// The trailer fields MCUboot reads at the end of a slot, with the default 8-byte alignment: magic in the last 16
/// bytes, `image_ok` at −24, `copy_done` at −32 (`bootutil_public.c`).
struct Trailer {
    var hasMagic: Bool
    var imageOK: Bool
    var copyDone: Bool

    init(_ slot: [UInt8]) {
        hasMagic = Array(slot.suffix(16)) == MCUbootTrailer.bootMagic
        imageOK = slot[slot.count - 24] == 1
        copyDone = slot[slot.count - 32] == 1
    }

    static func write(_ slot: inout [UInt8], imageOK: Bool, copyDone: Bool) {
        slot.replaceSubrange(slot.count - 16..<slot.count, with: MCUbootTrailer.bootMagic)
        slot[slot.count - 24] = imageOK ? 1 : 0xFF
        slot[slot.count - 32] = copyDone ? 1 : 0xFF
    }

    static func erase(_ slot: inout [UInt8]) {
        for index in slot.count - 48..<slot.count { slot[index] = 0xFF }
    }
}

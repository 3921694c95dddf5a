import Checksums
import MCUbootImage
package import SMP

/// A Zephyr application with MCUmgr's OS and image groups on an MCUboot bootloader (swap mode, a primary and a
/// secondary slot per updatable image), as a sans-IO machine: request frames in, answer frames and a reboot flag out.
///
/// With several images (`CONFIG_MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER` > 1, as on an nRF5340: image 0 the
/// application core, image 1 the network core), image `n` has slots `2n` and `2n + 1`; an upload goes to the
/// secondary slot of the image its first chunk names, the state read lists every image's slots with an `image`
/// field (`img_mgmt_state_read`), and MCUboot swaps each pair on its own at boot.
///
/// It follows Zephyr's handlers as read in the source (`img_mgmt.c`, `zephyr_img_mgmt.c`, `img_mgmt_state.c`,
/// `os_mgmt.c`, `smp.c`), independently of `SMPUploader`, so that it serves as an oracle:
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
package struct SimulatedSMPDevice: Sendable {
    /// What the device does after a request.
    package struct Output: Sendable, Equatable {
        /// The answer frame, `nil` when the request gets none (a stalled device).
        package var answer: [UInt8]?
        /// Whether the device resets after sending the answer (OS reset).
        package var resetsAfterAnswer: Bool
    }

    /// The device's options.
    package struct Configuration: Sendable, Equatable {
        /// The size of each image slot in bytes; a padded image (`imgtool --pad`, `--confirm`) must match it.
        package var slotSize: Int
        /// Whether the device answers MCUmgr parameters (`CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS`; off in Zephyr, so rc 8).
        package var answersParameters = false
        /// `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` and `_COUNT`, reported when ``answersParameters`` is set.
        package var parameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4)
        /// `CONFIG_MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER`: how many images the device updates (Zephyr supports 1
        /// to 3 here; the simulator any number from 1).
        package var imageCount = 1
        /// Which slots of an image other than the running application (image 0) may be confirmed.
        package var otherImageConfirmation = OtherImageConfirmation.any
        /// A way the device misbehaves on purpose, or `nil` for Zephyr's behaviour.
        package var misbehaviour: SMPMisbehaviour?
        /// nRF Connect SDK 2.6 to 3.4 on the nRF5340 (sdk-nrf known issue NCSDK-34106).
        ///
        /// When the application core image (0) is marked for the next boot before the network core image (1),
        /// MCUboot swaps the application and skips the network core update, leaving that image in its secondary
        /// slot with no swap asked for.
        /// On for every device of two or more images, as those NCS releases build them.
        package var skipsNetworkCoreMarkedAfterApplication = true
        /// Whether the device starts in MCUboot's serial recovery (`boot_serial.c`) rather than in its application.
        package var startsInSerialRecovery = false
        /// MCUboot's mode (`enum mcuboot_mode`) that `os bootloader info` reports, and that the device's boot follows.
        ///
        /// 2 overwrite-only (a marked image is copied over the primary slot, no revert), 4 direct-XIP and 6 RAM-load
        /// (uploads go to the slot not running, and the boot runs the valid slot of the highest version; no marks,
        /// no revert); any other value boots as the swap modes do. `nil`: the swap this device does, reported as 1
        /// (swap using scratch) unless ``SimulatedManagementGroups/bootloaderMode`` says otherwise.
        package var bootloaderMode: Int?

        /// Zephyr's `CONFIG_MCUMGR_GRP_IMG_ALLOW_CONFIRM_NON_ACTIVE_IMAGE_SECONDARY` and `_ANY`
        /// (`img_mgmt_set_next_boot_slot`): whether a confirm for image 1 or above is refused with
        /// `IMG_MGMT_ERR_IMAGE_CONFIRMATION_DENIED`.
        package enum OtherImageConfirmation: Sendable, Equatable {
            /// Both options off: every confirm of another image is refused.
            case denied
            /// `_SECONDARY`: its secondary slot may be confirmed (a permanent swap), its running slot not.
            case secondarySlot
            /// `_ANY`: any slot, so a tested network core image can be confirmed after the reset; Nordic's
            /// multi-image `smp_svr` configurations set it, and so does the simulator by default.
            case any
        }

        /// Creates a configuration.
        ///
        /// - Parameter slotSize: The slot size.
        package init(slotSize: Int) {
            self.slotSize = slotSize
        }
    }

    /// The device's options.
    package let configuration: Configuration
    /// Every slot, image by image: image `n`'s primary (running) slot at `2n`, its secondary at `2n + 1`.
    package internal(set) var slots: [[UInt8]]
    /// Image 0's primary slot (slot 0), the running application.
    package var primary: [UInt8] { slots[0] }
    /// Image 0's secondary slot (slot 1), where its uploads go.
    package var secondary: [UInt8] { slots[1] }
    /// Boots so far, the first power-on included.
    package internal(set) var bootCount = 1
    /// Boots that swapped a new image into a primary slot (test or permanent; one boot however many images it
    /// swapped), reverts not counted.
    package internal(set) var swapCount = 0
    /// What the device did, one line per event, for tests and `--verbose`.
    package internal(set) var log: [String] = []

    /// The upload in progress (`g_img_mgmt_state`), lost on reboot.
    private var upload: UploadState?
    /// The image numbers whose secondary slot was marked for the next boot since the last boot, in that order.
    private var marked: [Int] = []
    /// A respond@ fault: the next request with this image-group command id is answered with this rc.
    private var forcedAnswers: [(id: UInt8, rc: Int)] = []
    /// ``SMPMisbehaviour/noReturn``: the device reset and never came back.
    package private(set) var isGone = false
    /// Whether MCUboot's serial recovery answers, rather than the application (see `SimulatedSMPDevice+Recovery`).
    package internal(set) var isInSerialRecovery = false
    /// Direct-XIP and RAM-load: the slot (0 or 1) each image runs from.
    var runningSlots: [Int] = []
    /// Serial recovery's upload (`bs_upload`'s `curr_off`, `img_size` and `img_num`), lost on reset.
    var recoveryUpload: (image: Int, offset: Int, size: Int)?
    /// Whether serial recovery wrote a whole image since the device last booted.
    var recoveryWroteImage = false
    /// The OS, statistics, settings, file system, shell, enumeration and Zephyr basic groups, and their state.
    package var managementGroups = SimulatedManagementGroups()

    private struct UploadState: Sendable {
        /// The image number the first chunk named.
        var image: Int
        var offset: Int
        var size: Int
        var sha: [UInt8]
    }

    /// Creates a device running `running` (an MCUboot image placed in the primary slot, confirmed).
    ///
    /// With ``Configuration/imageCount`` above 1, image `n` ≥ 1 runs a hash-only image of version 0.0.1 whose body
    /// is 4 KiB of the byte `n`.
    ///
    /// - Parameters:
    ///   - configuration: The device's options.
    ///   - running: The image in slot 0.
    package init(configuration: Configuration, running: [UInt8]) {
        let others = (1..<max(1, configuration.imageCount)).map { image in
            UnsignedImageBuilder.image(
                version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
                body: [UInt8](repeating: UInt8(truncatingIfNeeded: image), count: 4096))
        }
        self.init(configuration: configuration, running: [running] + others)
    }

    /// Creates a device whose image `n` runs `running[n]` (each placed in its primary slot, confirmed).
    ///
    /// - Parameters:
    ///   - configuration: The device's options; ``Configuration/imageCount`` must be `running.count`.
    ///   - running: The running image of each image number.
    package init(configuration: Configuration, running: [[UInt8]]) {
        precondition(configuration.imageCount >= 1, "a device updates at least one image")
        precondition(running.count == configuration.imageCount, "one running image per image number")
        self.configuration = configuration
        isInSerialRecovery = configuration.startsInSerialRecovery
        if let mode = configuration.bootloaderMode { managementGroups.bootloaderMode = mode }
        runningSlots = [Int](repeating: 0, count: configuration.imageCount)
        var slots: [[UInt8]] = []
        for image in running {
            precondition(image.count <= configuration.slotSize, "a running image is larger than a slot")
            var primary = image + [UInt8](repeating: 0xFF, count: configuration.slotSize - image.count)
            Trailer.write(&primary, imageOK: true, copyDone: true)
            slots += [primary, [UInt8](repeating: 0xFF, count: configuration.slotSize)]
        }
        self.slots = slots
    }

    /// Forces the answer to the next image-group request with command `id` (the `respond@ID:RC` fault).
    ///
    /// - Parameters:
    ///   - id: The image-group command id.
    ///   - rc: The image-group error code to answer with.
    package mutating func forceAnswer(toCommand id: UInt8, rc: Int) {
        forcedAnswers.append((id, rc))
    }

    // MARK: - Requests

    /// Handles one request frame.
    ///
    /// - Parameter bytes: The request.
    /// - Returns: The answer and whether the device resets after it.
    package mutating func receive(_ bytes: [UInt8]) -> Output {
        guard !isGone else {
            log.append("heard nothing: the device never came back after its reset")
            return Output(answer: nil, resetsAfterAnswer: false)
        }
        guard let frame = try? SMPFrame(decoding: bytes) else {
            // Zephyr drops a request it cannot parse (smp_process_request_packet returns an error, no answer).
            log.append("dropped a malformed request of \(bytes.count) bytes")
            return Output(answer: nil, resetsAfterAnswer: false)
        }
        let header = frame.header
        if isInSerialRecovery {
            guard bytes.count <= Self.recoveryBufferSize else {
                log.append("serial recovery dropped a request of \(bytes.count) bytes (its buffer holds 1024)")
                return Output(answer: nil, resetsAfterAnswer: false)
            }
            let (body, resets) = recoveryAnswer(frame)
            let responseHeader = SMPHeader(
                operation: header.operation.response, version: header.version, length: 0, group: header.group,
                sequence: header.sequence, command: header.command)
            return Output(
                answer: SMPFrame(header: responseHeader, body: body).encoded(style: .indefinite),
                resetsAfterAnswer: resets)
        }
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
            body = unlessIgnored { $0.writeState(frame.body) }
        case (SMPGroup.image.rawValue, 1, .write):
            body = uploadChunk(frame.body)
        case (SMPGroup.image.rawValue, 5, .write):
            body = unlessIgnored { $0.erase(frame.body) }
        default:
            // The other groups (SimulatedManagementGroups), or rc 8 for what no handler takes.
            body =
                managementGroups.answer(frame, bufferSize: configuration.parameters.bufferSize).map(Answer.ok)
                ?? .mcumgrError(MCUmgrError.notSupported.rawValue)
        }
        let responseHeader = SMPHeader(
            operation: header.operation.response, version: header.version, length: 0, group: header.group,
            sequence: header.sequence, command: header.command)
        var encoded = body.encoded(version: header.version)
        // The misbehaviours of the answers' bodies start with the image group: the start (parameters) is correct.
        let misbehaviour = header.group == SMPGroup.image.rawValue ? configuration.misbehaviour : nil
        switch (misbehaviour, body, encoded) {
        case (.hugeLength?, _, _):
            // {"off": h'…'} whose byte string declares 2^32 - 1 bytes; two follow.
            var raw: [UInt8] = [0xBF, 0x63] + Array("off".utf8) + [0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xFF]
            var lying = responseHeader
            lying.length = UInt16(raw.count)
            raw = lying.encoded + raw
            return Output(answer: raw, resetsAfterAnswer: resets)
        case (.duplicateKeys?, .ok, .map(let entries)) where !entries.isEmpty:
            encoded = .map([CBORMapEntry(entries[0].key, Self.madeUp(for: entries[0]))] + entries)
        default:
            break
        }
        let answer = SMPFrame(header: responseHeader, body: encoded)
        return Output(answer: answer.encoded(style: .indefinite), resetsAfterAnswer: resets)
    }

    /// Runs a state change; with ``SMPMisbehaviour/ignoredStateWrite`` answers as it would, and undoes it.
    private mutating func unlessIgnored(_ change: (inout SimulatedSMPDevice) -> Answer) -> Answer {
        guard configuration.misbehaviour == .ignoredStateWrite else { return change(&self) }
        let (saved, savedUpload) = (slots, upload)
        let answer = change(&self)
        (slots, upload) = (saved, savedUpload)
        log.append("answered a state change as done and made none (misbehaving)")
        return answer
    }

    /// The made-up value that ``SMPMisbehaviour/duplicateKeys`` puts in front of the real entry: an image list with
    /// one running slot whose hash is all zeros, offset 0, or the same value again.
    private static func madeUp(for entry: CBORMapEntry) -> CBORValue {
        switch entry.key {
        case .text("images"):
            .array([
                ImageSlotState(
                    slot: 0, version: "9.9.9", hash: [UInt8](repeating: 0, count: 32), isConfirmed: true,
                    isActive: true
                ).body
            ])
        case .text("off"): .int(0)
        default: entry.value
        }
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
            let image = body["image"]?.intValue ?? 0
            if let upload, !sha.isEmpty, upload.sha == sha, upload.image == image {
                log.append("upload resumed at offset \(upload.offset)\(imageLabel(image))")
                return .ok(.map([CBORMapEntry("off", .int(upload.offset))]))
            }
            // img_mgmt_get_unused_slot_area_id: no slot for an image number the device does not update.
            guard (0..<configuration.imageCount).contains(image), !isSecondaryInUse(image: image) else {
                upload = nil
                return .imageError(ImageManagementError.noFreeSlot.rawValue)
            }
            guard size <= configuration.slotSize else {
                upload = nil
                return .imageError(ImageManagementError.imageTooLarge.rawValue)
            }
            slots[uploadSlot(image)] = [UInt8](repeating: 0xFF, count: configuration.slotSize)
            upload = UploadState(image: image, offset: 0, size: size, sha: sha)
            log.append(
                "upload started: \(size) bytes\(imageLabel(image)), "
                    + (bootsNewestSlot ? "slot \(uploadSlot(image)) erased" : "secondary slot erased"))
        } else {
            if let current = upload, offset == current.offset {
                switch configuration.misbehaviour {
                case .stuckOffset?:
                    log.append("answered offset \(current.offset) without writing (misbehaving)")
                    return .ok(.map([CBORMapEntry("off", .int(current.offset))]))
                case .offsetBack?:
                    let back = max(1, offset - 64)
                    upload?.offset = back
                    log.append("answered offset \(back) for the chunk at \(offset) (misbehaving)")
                    return .ok(.map([CBORMapEntry("off", .int(back))]))
                default:
                    break
                }
            }
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
        let slot = uploadSlot(current.image)
        slots[slot].replaceSubrange(current.offset..<current.offset + data.count, with: data)
        current.offset += data.count
        var answer = [CBORMapEntry("off", .int(current.offset))]
        if current.offset == current.size {
            log.append("upload complete: \(current.size) bytes\(imageLabel(current.image))")
            upload = nil
            // CONFIG_IMG_ENABLE_IMAGE_CHECK: the last answer says whether the data's SHA-256 matches `sha`.
            if current.sha.count == 32 {
                answer.append(
                    CBORMapEntry("match", .bool(SHA256.hash(slots[slot].prefix(current.size)) == current.sha)))
            }
        } else {
            upload = current
        }
        return .ok(.map(answer))
    }

    /// " (image N)" on a device with several images; nothing on a single-image one, whose log stays as it was.
    func imageLabel(_ image: Int) -> String {
        configuration.imageCount > 1 ? " (image \(image))" : ""
    }

    // MARK: - Erase (img_mgmt_erase)

    /// Erases a slot as `img_mgmt_erase` does.
    ///
    /// The slot comes from the body (`slot`, default 1: the running image's
    /// opposite slot); a slot that holds a valid image and is in use (`img_mgmt_slot_in_use`: the active slot, or a
    /// secondary slot pending a test or permanent swap, or holding a revert) is refused with
    /// `IMG_MGMT_ERR_NO_FREE_SLOT`; a slot the device does not have cannot be opened
    /// (`IMG_MGMT_ERR_FLASH_OPEN_FAILED`). The upload in progress is forgotten (`img_mgmt_reset_upload`), and the answer
    /// is an empty map.
    private mutating func erase(_ body: CBORValue) -> Answer {
        var slot = 1
        if let value = body["slot"] {
            guard let given = value.intValue, given >= 0 else {
                return .mcumgrError(MCUmgrError.invalidValue.rawValue)
            }
            slot = given
        }
        guard slots.indices.contains(slot) else {
            upload = nil
            return .imageError(ImageManagementError.flashOpenFailed.rawValue)
        }
        let image = slot / 2
        let isInUse = slot % 2 == 0 || isSecondaryInUse(image: image)
        if Self.slotImage(slots[slot]) != nil, isInUse {
            return .imageError(ImageManagementError.noFreeSlot.rawValue)
        }
        slots[slot] = [UInt8](repeating: 0xFF, count: configuration.slotSize)
        upload = nil
        log.append("slot \(slot) erased\(imageLabel(image))")
        return .ok(.map([]))
    }

    // MARK: - State (img_mgmt_state.c)

    /// MCUboot's swap type for the next boot (`boot_swap_type_multi`, simplified to the states this device reaches).
    private enum SwapType {
        case none
        case test
        case permanent
        case revert
    }

    private func swapType(image: Int) -> SwapType {
        let secondaryTrailer = Trailer(slots[2 * image + 1])
        if secondaryTrailer.hasMagic { return secondaryTrailer.imageOK ? .permanent : .test }
        let primaryTrailer = Trailer(slots[2 * image])
        if primaryTrailer.hasMagic, primaryTrailer.copyDone, !primaryTrailer.imageOK { return .revert }
        return .none
    }

    /// `img_mgmt_slot_in_use`: a pending or revert secondary slot may not be uploaded to.
    private func isSecondaryInUse(image: Int) -> Bool { swapType(image: image) != .none }

    /// The image state answer (`img_mgmt_state_read`).
    ///
    /// Each image's primary, then its secondary, with an `image` field when the device updates more than one image.
    /// Each image's running slot is `active`.
    private var stateBody: CBORValue {
        var entries: [CBORValue] = []
        for image in 0..<configuration.imageCount {
            let type = swapType(image: image)
            for slot in 0...1 {
                guard let contents = Self.slotImage(slots[2 * image + slot]) else { continue }
                var state = ImageSlotState(
                    image: image, slot: slot, version: contents.header.version.smpDescription,
                    hash: contents.storedHash ?? [], isBootable: contents.header.flags & 0x10 == 0,
                    isPending: slot == 1 && (type == .test || type == .permanent),
                    isConfirmed: slot == 0 ? type != .revert : type == .revert, isActive: slot == 0,
                    isPermanent: slot == 1 && type == .permanent)
                if bootsNewestSlot {
                    // No marks: the running slot is the confirmed, active one.
                    let isRunning = slot == runningSlots[image]
                    state.isActive = isRunning
                    state.isConfirmed = isRunning
                    state.isPending = false
                    state.isPermanent = false
                }
                guard configuration.imageCount > 1, case .map(let fields) = state.body else {
                    entries.append(state.body)
                    continue
                }
                entries.append(.map([CBORMapEntry("image", .int(image))] + fields))
            }
        }
        return .map([CBORMapEntry("images", .array(entries)), CBORMapEntry("splitStatus", .int(0))])
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
        var image = 0
        var slot: Int
        switch body["hash"] {
        case nil:
            // Confirm without a hash: the running slot of the running application.
            guard confirm else { return .imageError(ImageManagementError.invalidHash.rawValue) }
            slot = 0
        case .bytes(let hash)? where hash.count == 32:
            // img_mgmt_find_by_hash: every slot of every image.
            guard let found = slots.indices.first(where: { Self.slotImage(slots[$0])?.storedHash == hash }) else {
                return .imageError(ImageManagementError.hashNotFound.rawValue)
            }
            image = found / 2
            slot = found % 2
        default:
            return .imageError(ImageManagementError.invalidHash.rawValue)
        }
        // img_mgmt_set_next_boot_slot, swap mode; the running application is image 0.
        if confirm && image != 0 {
            switch configuration.otherImageConfirmation {
            case .any: break
            case .secondarySlot where slot == 1: break
            case .secondarySlot, .denied: return .imageError(ImageManagementError.confirmationDenied.rawValue)
            }
        }
        let type = swapType(image: image)
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
            Trailer.write(&slots[2 * image], imageOK: true, copyDone: true)
            log.append("running image confirmed\(imageLabel(image))")
        } else {
            Trailer.write(&slots[2 * image + 1], imageOK: confirm, copyDone: false)
            marked.append(image)
            log.append(
                "slot \(2 * image + 1) marked \(confirm ? "pending permanent" : "pending test")\(imageLabel(image))")
        }
        return .ok(stateBody)
    }

    // MARK: - Boot (MCUboot)

    /// Resets: the upload in progress is lost and MCUboot swaps each image's pair as its trailers ask.
    package mutating func reboot() {
        if isInSerialRecovery {
            leaveSerialRecovery()
            return
        }
        if configuration.misbehaviour == .noReturn {
            isGone = true
            log.append("reset: never came back (misbehaving)")
            return
        }
        bootCount += 1
        upload = nil
        var swapped = false
        defer { if swapped { swapCount += 1 } }
        let order = marked
        marked = []
        if bootsNewestSlot {
            bootNewestSlots()
            return
        }
        for image in 0..<configuration.imageCount {
            let label = imageLabel(image)
            if image == 1, configuration.skipsNetworkCoreMarkedAfterApplication,
                let application = order.firstIndex(of: 0), let network = order.firstIndex(of: 1),
                application < network, swapType(image: 1) == .test || swapType(image: 1) == .permanent
            {
                Trailer.erase(&slots[3])
                log.append(
                    "boot \(bootCount): network core update skipped: the application core image was marked first "
                        + "(NCSDK-34106)")
                continue
            }
            switch swapType(image: image) {
            case .none:
                log.append("boot \(bootCount): no swap\(label)")
            case .test, .permanent:
                let isPermanent = swapType(image: image) == .permanent
                guard let contents = Self.slotImage(slots[2 * image + 1]), (try? contents.verifiedHash()) != nil else {
                    slots[2 * image + 1] = [UInt8](repeating: 0xFF, count: configuration.slotSize)
                    log.append("boot \(bootCount): secondary image invalid, erased\(label)")
                    continue
                }
                if configuration.bootloaderMode == 2 {
                    // Overwrite-only: the image is copied over the primary slot for good; there is nothing to revert.
                    slots[2 * image] = slots[2 * image + 1]
                    slots[2 * image + 1] = [UInt8](repeating: 0xFF, count: configuration.slotSize)
                    Trailer.write(&slots[2 * image], imageOK: true, copyDone: true)
                    swapped = true
                    log.append(
                        "boot \(bootCount): overwritten with \(contents.header.version) (overwrite-only)\(label)")
                    continue
                }
                swap(image: image)
                swapped = true
                Trailer.write(&slots[2 * image], imageOK: isPermanent, copyDone: true)
                log.append(
                    "boot \(bootCount): swapped to \(contents.header.version) (\(isPermanent ? "permanent" : "test"))"
                        + label)
            case .revert:
                swap(image: image)
                Trailer.write(&slots[2 * image], imageOK: true, copyDone: true)
                log.append("boot \(bootCount): test image not confirmed, reverted\(label)")
            }
        }
    }

    private mutating func swap(image: Int) {
        slots.swapAt(2 * image, 2 * image + 1)
        Trailer.erase(&slots[2 * image])
        Trailer.erase(&slots[2 * image + 1])
    }

    /// How long the next boot takes in MCUboot.
    ///
    /// For a swap (or revert), every sector of the image is moved three times
    /// (swap using scratch), at nRF52's flash timings (page erase 85 ms per 4 KiB, 41 µs per 32-bit word: nRF52832
    /// PS §4.3), image pair after image pair. Read it before ``reboot()``.
    package var nextBootSwapDuration: Duration {
        var total = Duration.zero
        for image in 0..<configuration.imageCount {
            let type = swapType(image: image)
            guard type != .none, let contents = Self.slotImage(slots[2 * image + (type == .revert ? 0 : 1)]) else {
                continue
            }
            let end =
                contents.header.headerSize + contents.header.imageSize + contents.header.protectedTLVSize
                + contents.tlvs.totalSize
            let pages = (end + 4095) / 4096
            total += (.milliseconds(85) + .microseconds(41 * 1024)) * (pages * 3)
        }
        return total
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

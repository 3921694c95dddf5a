import MCUbootImage
import SMP

/// MCUboot's serial recovery (`boot_serial.c`, its defaults): the bootloader itself answers SMP, with a few commands.
///
/// - image state read lists each image's valid slots with `slot`, `hash` and `version` (and `image` with several
///   images), and no flags: nothing runs, so nothing is active or confirmed;
/// - an image upload goes straight to the image's primary slot (`flash_area_id_from_multi_image_slot(image, 0)`),
///   erased whole by the chunk at offset 0; a chunk at another offset than expected is answered rc 0 with the
///   expected offset; answers carry `rc` and `off`;
/// - state write, erase, echo and MCUmgr parameters, and every other group, answer rc 8 (`MGMT_ERR_ENOTSUP`);
/// - a request longer than the receive buffer (`MCUBOOT_SERIAL_MAX_RECEIVE_SIZE`, 1024 bytes) gets no answer;
/// - reset answers rc 0, and MCUboot then boots the primary slot's image, which takes over SMP as the application;
///   with no valid image there the device stays in recovery.
extension SimulatedSMPDevice {
    /// MCUboot's default `MCUBOOT_SERIAL_MAX_RECEIVE_SIZE`: the longest request serial recovery takes.
    static let recoveryBufferSize = 1024

    /// The answer body of serial recovery to `frame`, and whether the device resets after it.
    mutating func recoveryAnswer(_ frame: SMPFrame) -> (CBORValue, resets: Bool) {
        let header = frame.header
        switch (header.group, header.command, header.operation) {
        case (SMPGroup.image.rawValue, 0, .read):
            return (recoveryList(), false)
        case (SMPGroup.image.rawValue, 1, .write):
            return (.map(recoveryUpload(frame.body)), false)
        case (SMPGroup.os.rawValue, 5, .write):
            log.append("serial recovery: reset requested")
            return (Self.rc(0), true)
        default:
            return (Self.rc(MCUmgrError.notSupported.rawValue), false)
        }
    }

    private static func rc(_ code: Int) -> CBORValue { .map([CBORMapEntry("rc", .int(code))]) }

    /// `bs_list`: every valid slot, without flags.
    private func recoveryList() -> CBORValue {
        var entries: [CBORValue] = []
        for image in 0..<configuration.imageCount {
            for slot in 0...1 {
                guard let contents = Self.slotImage(slots[2 * image + slot]), let hash = contents.storedHash else {
                    continue
                }
                var fields: [CBORMapEntry] = []
                if configuration.imageCount > 1 { fields.append(CBORMapEntry("image", .int(image))) }
                fields += [
                    CBORMapEntry("slot", .int(slot)), CBORMapEntry("hash", .bytes(hash)),
                    CBORMapEntry("version", .text(contents.header.version.smpDescription)),
                ]
                entries.append(.map(fields))
            }
        }
        return .map([CBORMapEntry("images", .array(entries))])
    }

    /// `bs_upload`: to the primary slot of the first chunk's image.
    private mutating func recoveryUpload(_ body: CBORValue) -> [CBORMapEntry] {
        let invalid = [CBORMapEntry("rc", .int(MCUmgrError.invalidValue.rawValue))]
        guard let offset = body["off"]?.intValue, case .bytes(let data)? = body["data"] else { return invalid }
        if offset == 0 {
            let image = body["image"]?.intValue ?? 0
            guard image < configuration.imageCount else {
                return [CBORMapEntry("rc", .int(MCUmgrError.noEntry.rawValue))]
            }
            guard let size = body["len"]?.intValue, size > 0, size <= configuration.slotSize else { return invalid }
            slots[2 * image] = [UInt8](repeating: 0xFF, count: configuration.slotSize)
            recoveryUpload = (image, 0, size)
            log.append("serial recovery: upload started: \(size) bytes to image \(image)'s primary slot, erased")
        } else if let current = recoveryUpload, offset != current.offset {
            return [CBORMapEntry("rc", .int(0)), CBORMapEntry("off", .int(current.offset))]
        }
        guard var current = recoveryUpload, current.offset + data.count <= current.size else { return invalid }
        slots[2 * current.image].replaceSubrange(current.offset..<current.offset + data.count, with: data)
        current.offset += data.count
        recoveryUpload = current
        if current.offset == current.size {
            log.append("serial recovery: upload complete: \(current.size) bytes")
            recoveryWroteImage = true
        }
        return [CBORMapEntry("rc", .int(0)), CBORMapEntry("off", .int(current.offset))]
    }

    /// The reset out of recovery: MCUboot boots image 0's primary slot if it holds a valid image.
    mutating func leaveSerialRecovery() {
        bootCount += 1
        recoveryUpload = nil
        guard let running = Self.slotImage(slots[0]), (try? running.verifiedHash()) != nil else {
            log.append("boot \(bootCount): no valid image in the primary slot; serial recovery again")
            return
        }
        isInSerialRecovery = false
        // Booting an image recovery wrote is its activation (what a USB device re-enumerates on).
        if recoveryWroteImage { swapCount += 1 }
        recoveryWroteImage = false
        log.append("boot \(bootCount): serial recovery left; running \(running.header.version)")
    }
}

/// The bootloader modes other than swap: how direct-XIP and RAM-load boot (`os bootloader info` reports the mode:
/// `SimulatedManagementGroups`).
extension SimulatedSMPDevice {
    /// Direct-XIP (4) and RAM-load (6): the newest valid slot runs, with no marks and no revert.
    var bootsNewestSlot: Bool { configuration.bootloaderMode == 4 || configuration.bootloaderMode == 6 }

    /// The slot an upload of `image` goes to: the secondary, or in direct-XIP and RAM-load the slot not running.
    func uploadSlot(_ image: Int) -> Int {
        bootsNewestSlot ? 2 * image + (1 - runningSlots[image]) : 2 * image + 1
    }

    /// Direct-XIP and RAM-load boot: each image runs its valid slot of the highest version.
    mutating func bootNewestSlots() {
        for image in 0..<configuration.imageCount {
            let valid = (0...1).compactMap { slot -> (slot: Int, version: MCUbootVersion)? in
                guard let contents = Self.slotImage(slots[2 * image + slot]), (try? contents.verifiedHash()) != nil
                else { return nil }
                return (slot, contents.header.version)
            }
            guard let newest = valid.max(by: { Self.isOlder($0.version, than: $1.version) }) else { continue }
            if newest.slot != runningSlots[image] { swapCount += 1 }
            runningSlots[image] = newest.slot
            log.append(
                "boot \(bootCount): running slot \(2 * image + newest.slot) (\(newest.version))\(imageLabel(image))")
        }
    }

    private static func isOlder(_ lhs: MCUbootVersion, than rhs: MCUbootVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.revision) < (rhs.major, rhs.minor, rhs.revision)
    }
}

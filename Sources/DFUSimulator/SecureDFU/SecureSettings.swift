internal import Checksums

/// The Secure bootloader's settings page (`s_dfu_settings`): versions and transfer progress.
///
/// The fields mirror the SDK's, which is what makes the simulator's Select answers match the device's.
struct SecureSettings: Sendable {
    var applicationVersion: UInt32
    var bootloaderVersion: UInt32
    var softDeviceFWID: UInt32?

    /// `progress.command_size`: size of the created command object, 0 when none.
    var commandSize = 0
    /// The command object bytes received; `progress.command_offset` is their count.
    var command: [UInt8] = []
    /// `progress.command_crc`.
    var commandCRC: UInt32 = 0
    /// The executed, prevalidated init packet (`m_valid_init_cmd_present`).
    var validInit: ValidatedInit?

    /// `progress.data_object_size`: size of the current data object, 0 after Execute.
    var dataObjectSize = 0
    /// The image bytes received; `progress.firmware_image_offset` is their count.
    var firmware: [UInt8] = []
    /// `progress.firmware_image_crc`.
    var firmwareCRC: UInt32 = 0
    /// `progress.firmware_image_offset_last`: end of the last executed data object.
    var lastExecutedOffset = 0
    /// `progress.firmware_image_crc_last`.
    var lastExecutedCRC: UInt32 = 0

    init(options: SecureBootloaderOptions) {
        applicationVersion = options.applicationVersion
        bootloaderVersion = options.bootloaderVersion
        softDeviceFWID = options.softDeviceFWID
    }

    var commandOffset: Int { command.count }
    var firmwareOffset: Int { firmware.count }

    /// `nrf_dfu_settings_progress_reset`.
    mutating func resetProgress() {
        commandSize = 0
        command = []
        commandCRC = 0
        validInit = nil
        dataObjectSize = 0
        firmware = []
        firmwareCRC = 0
        lastExecutedOffset = 0
        lastExecutedCRC = 0
    }

    mutating func appendCommand(_ bytes: [UInt8]) {
        command += bytes
        var crc = CRC32(continuingFrom: commandCRC)
        crc.update(bytes)
        commandCRC = crc.value
    }

    mutating func appendFirmware(_ bytes: [UInt8]) {
        firmware += bytes
        var crc = CRC32(continuingFrom: firmwareCRC)
        crc.update(bytes)
        firmwareCRC = crc.value
    }

    /// Rewinds the data offset to the last executed object (what Create data does).
    mutating func rewindToLastExecuted() {
        firmware.removeLast(firmware.count - lastExecutedOffset)
        firmwareCRC = lastExecutedCRC
    }

    /// What the settings page holds after a reset.
    ///
    /// Settings are written when an init packet is executed and, with `NRF_DFU_SAVE_PROGRESS_IN_FLASH`,
    /// after every executed data object; RAM-only progress is lost. So the data offset falls back to the last
    /// executed object boundary (or to 0), and an unexecuted init packet is forgotten.
    func afterReset(savesProgress: Bool) -> SecureSettings {
        var settings = self
        guard validInit != nil else {
            settings.resetProgress()
            return settings
        }
        settings.dataObjectSize = 0
        if !savesProgress {
            settings.lastExecutedOffset = 0
            settings.lastExecutedCRC = 0
        }
        settings.rewindToLastExecuted()
        return settings
    }
}

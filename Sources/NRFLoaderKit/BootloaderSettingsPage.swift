import BootloaderSettings

/// A Secure DFU bootloader settings page, as nrfutil 6.1.7 `settings generate` makes it and `settings display`
/// shows it: programmed with the application so that the bootloader boots it without a DFU first.
public struct BootloaderSettingsPage: Sendable {
    /// The device families nrfutil knows, each with its settings page address, named as nrfutil names them.
    public enum Family: String, Sendable, CaseIterable {
        /// nRF51 (settings at 0x0003FC00).
        case nrf51 = "NRF51"
        /// nRF52832 and nRF52 chips with 512 KiB of flash (settings at 0x0007F000).
        case nrf52 = "NRF52"
        /// nRF52832 QFAB, 256 KiB of flash (settings at 0x0003F000).
        case nrf52QFAB = "NRF52QFAB"
        /// nRF52810 (settings at 0x0002F000).
        case nrf52810 = "NRF52810"
        /// nRF52840 (settings at 0x000FF000).
        case nrf52840 = "NRF52840"

        var engineFamily: BootloaderSettings.BootloaderSettingsPage.Family {
            switch self {
            case .nrf51: .nrf51
            case .nrf52: .nrf52
            case .nrf52QFAB: .nrf52QFAB
            case .nrf52810: .nrf52810
            case .nrf52840: .nrf52840
            }
        }
    }

    /// What the page holds, as `settings generate` takes it.
    public struct Options: Sendable {
        /// The device family, which sets the default page address.
        public var family: Family
        /// The bootloader version.
        public var bootloaderVersion: UInt32
        /// The settings page format: 1 (nRF5 SDK 12.0 to 15.2) or 2 (15.3 and later).
        public var settingsVersion: UInt32
        /// The application in flash, whose size and CRC the page records; `nil` for none.
        public var application: ImageFile?
        /// The application's version; `nil` for none.
        public var applicationVersion: UInt32?
        /// The SoftDevice in flash, whose size the page records; `nil` for none.
        public var softDevice: ImageFile?
        /// The page's address; `nil` for the family's.
        public var startAddress: UInt32?
        /// Whether to add the backup page that bootloaders from nRF5 SDK 15.1 on keep.
        public var includesBackup = true
        /// The backup page's address; `nil` for one page below the settings page.
        public var backupAddress: UInt32?
        /// How the bootloader checks the application before booting it; `nil` for nrfutil's default.
        public var applicationBootValidation: BootValidation?
        /// How the bootloader checks the SoftDevice before booting it; `nil` for nrfutil's default.
        public var softDeviceBootValidation: BootValidation?

        /// Options for a page of `family` with the required versions, and nothing else.
        ///
        /// - Parameters:
        ///   - family: The device family.
        ///   - bootloaderVersion: The bootloader version.
        ///   - settingsVersion: The settings page format, 1 or 2.
        public init(family: Family, bootloaderVersion: UInt32, settingsVersion: UInt32) {
            self.family = family
            self.bootloaderVersion = bootloaderVersion
            self.settingsVersion = settingsVersion
        }
    }

    /// The page and what generation or reading made of it.
    let page: BootloaderSettings.BootloaderSettingsPage

    /// Generates a page with nrfutil's rules: byte for byte the page nrfutil writes for the same options.
    ///
    /// - Parameters:
    ///   - options: What the page holds.
    ///   - signingKey: The key for ``BootValidation/ecdsaP256SHA256``; `nil` otherwise.
    /// - Throws: ``UpdateError``: options nrfutil refuses (``ExitStatus/usage``), or bad images
    ///   (``ExitStatus/dataError``).
    public init(generating options: Options, signingKey: SigningKey? = nil) throws(UpdateError) {
        var engine = BootloaderSettings.BootloaderSettingsPage.Options(
            family: options.family.engineFamily, bootloaderVersion: options.bootloaderVersion,
            settingsVersion: options.settingsVersion)
        engine.application = options.application?.inputImage
        engine.applicationVersion = options.applicationVersion
        engine.softdevice = options.softDevice?.inputImage
        engine.startAddress = options.startAddress
        engine.noBackup = !options.includesBackup
        engine.backupAddress = options.backupAddress
        engine.appBootValidation = options.applicationBootValidation?.validationType
        engine.sdBootValidation = options.softDeviceBootValidation?.validationType
        let signer = try signingKey?.initPacketSigner()
        page = try UpdateError.wrapping {
            try BootloaderSettings.BootloaderSettingsPage(generating: engine, signer: signer)
        }
    }

    private init(page: BootloaderSettings.BootloaderSettingsPage) {
        self.page = page
    }

    /// Reads the settings page in an Intel HEX file the way `settings display` does: at each family's address in
    /// nrfutil's order, taking the first that holds a page whose CRC matches.
    ///
    /// - Parameter path: The HEX file's path, or `-` for standard input.
    /// - Returns: The page, and the line nrfutil prints when the nRF52 address holds no page before it shows one
    ///   found further on (else `nil`).
    /// - Throws: ``UpdateError``: the file missing or unreadable, or no page in it (``ExitStatus/dataError``).
    public static func read(fromHexFile path: String) throws(UpdateError) -> (
        page: BootloaderSettingsPage, note: String?
    ) {
        let bytes = try UpdateError.wrapping { try InputFile(path: path).readAll() }
        do {
            let read = try BootloaderSettings.BootloaderSettingsPage.read(bytes, path: path)
            return (BootloaderSettingsPage(page: read.page), read.note)
        } catch {
            // A page that cannot be read is bad data, even where the reader files it as a usage error.
            throw UpdateError(error, status: .dataError)
        }
    }

    /// The page as the Intel HEX text nrfutil writes.
    public var intelHexText: String { page.hexText }

    /// The page as nrfutil's `settings display` shows it (starts and ends with a newline).
    ///
    /// - Parameter file: The file name to show.
    /// - Returns: The text.
    public func displayText(file: String) -> String { page.description(file: file) }
}

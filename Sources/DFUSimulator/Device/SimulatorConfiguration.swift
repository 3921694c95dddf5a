/// Everything that makes one simulated device differ from another.
///
/// The defaults describe an nRF52832 running an SDK 15–17 example Secure DFU bootloader with no application
/// installed; each default names its source.
package import DeviceLink

package struct SimulatorConfiguration: Sendable {
    /// The application's address; bootloader addresses derive from it (``DeviceAddress/bootloaderAddress``).
    package var address: DeviceAddress
    /// The application's advertised name.
    package var applicationName: String
    /// The bootloader's default advertised name, `NRF_DFU_BLE_ADV_NAME` = "DfuTarg" in the SDK examples.
    package var bootloaderName: String
    /// Which bootloader is installed.
    package var bootloader: BootloaderKind
    /// Which buttonless service the application exposes.
    package var buttonless: ButtonlessService
    /// The application installed before the session, or `nil` for none; the device starts in the application
    /// when one is installed, else in the bootloader.
    package var installedApplication: [UInt8]?
    /// Flash erase and write times.
    package var flash: FlashTiming
    /// The largest ATT MTU the application accepts in an MTU exchange.
    package var applicationMaximumMTU: Int
    /// Time from a reset until the device advertises again.
    ///
    /// 300 ms is a simulator choice, not a measurement.
    package var resetDuration: Duration
    /// Supervision timeout: how long a central takes to notice that the device reset without closing the link
    /// (the legacy buttonless jump, an injected reboot).
    ///
    /// 4 s as in the SDK 11 examples (dfu-protocols.md §1.12).
    package var supervisionTimeout: Duration
    /// Faults to inject.
    package var faults: FaultPlan

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - address: The application's address.
    ///   - bootloader: The bootloader kind; defaults to an SDK 15–17 Secure DFU bootloader.
    ///   - buttonless: The application's buttonless service; defaults to none.
    ///   - installedApplication: The application present at start, if any.
    ///   - faults: Faults to inject; defaults to none.
    package init(
        address: DeviceAddress = DeviceAddress(bytes: [0xC0, 0xDE, 0x00, 0x00, 0x00, 0x01]),
        bootloader: BootloaderKind = .secure(SecureBootloaderOptions()),
        buttonless: ButtonlessService = .none,
        installedApplication: [UInt8]? = nil,
        faults: FaultPlan = FaultPlan()
    ) {
        self.address = address
        self.applicationName = "Nordic_App"
        self.bootloaderName = "DfuTarg"
        self.bootloader = bootloader
        self.buttonless = buttonless
        self.installedApplication = installedApplication
        self.flash = bootloader.defaultFlashTiming
        self.applicationMaximumMTU = 247
        self.resetDuration = .milliseconds(300)
        self.supervisionTimeout = .seconds(4)
        self.faults = faults
    }
}

/// The bootloader installed in the simulated device.
package enum BootloaderKind: Sendable {
    /// A Secure DFU bootloader (nRF5 SDK 15–17 behaviour).
    case secure(SecureBootloaderOptions)
    /// A legacy DFU bootloader.
    case legacy(LegacyBootloaderOptions)

    var defaultFlashTiming: FlashTiming {
        switch self {
        case .secure: .nRF52
        case .legacy: .nRF51
        }
    }
}

/// The buttonless DFU service of the application.
package enum ButtonlessService: Equatable, Sendable {
    /// None: the application cannot be told to enter the bootloader.
    case none
    /// The legacy DFU service in the application (Version characteristic 0.1, CP `01 04` jumps).
    case legacy
    /// Secure buttonless without bond sharing (8EC90003); the bootloader advertises at address + 1.
    case secureWithoutBonds
    /// Secure buttonless with bond sharing (8EC90004); the bootloader keeps the address.
    ///
    /// `isPeerBonded` says whether the simulated central is bonded; without a bond Enter Bootloader is
    /// answered with 0x07 (not bonded).
    case secureWithBonds(isPeerBonded: Bool)
}

/// How long the device's flash takes, per operation.
package struct FlashTiming: Equatable, Sendable {
    /// Bytes in one flash page.
    package var pageSize: Int
    /// Time to erase one page.
    package var pageErase: Duration
    /// Time to write one 32-bit word.
    package var wordWrite: Duration

    /// Creates a timing.
    ///
    /// - Parameters:
    ///   - pageSize: Bytes per page.
    ///   - pageErase: Time per page erase.
    ///   - wordWrite: Time per word write.
    package init(pageSize: Int, pageErase: Duration, wordWrite: Duration) {
        self.pageSize = pageSize
        self.pageErase = pageErase
        self.wordWrite = wordWrite
    }

    /// nRF52: 4 KiB pages, 85 ms per page erase, 41 µs per word.
    ///
    /// The S112 SoftDevice Specification ("Flash memory API", infocenter sds_s112) gives these as the
    /// maxima on nRF52810; the S132 specification gives 89.7 ms and 338 µs on nRF52832 through the SoftDevice
    /// flash API. The maxima are used so that hosts which do not wait after Create see the problem.
    package static let nRF52 = FlashTiming(pageSize: 4096, pageErase: .milliseconds(85), wordWrite: .microseconds(41))

    /// nRF51: 1 KiB pages, about 22 ms per page erase and 48 µs per word (S130 SoftDevice Specification,
    /// "Flash memory API").
    package static let nRF51 = FlashTiming(pageSize: 1024, pageErase: .milliseconds(22), wordWrite: .microseconds(48))
}

/// Which firmware component an image is.
package enum FirmwareType: Hashable, Sendable, CaseIterable {
    /// The application.
    case application
    /// The SoftDevice.
    case softDevice
    /// The bootloader.
    case bootloader
}

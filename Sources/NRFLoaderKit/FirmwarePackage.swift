import PackageBuilder

/// An nRF5 DFU package (`.zip`) made as nrfutil 6.1.7 `pkg generate` makes it (Secure DFU), or as adafruit-nrfutil
/// 0.5.3.post16 `dfu genpkg` does (legacy DFU): the same images, `manifest.json` and init packets for the same
/// inputs.
///
/// Numbers in the options are text, as the two tools take them on their command lines: nrfutil accepts `none` for
/// several, reads `0x…` as hexadecimal and a leading `0` as octal, and checks them in its own order, so that the
/// first complaint is the one nrfutil would make.
public struct FirmwarePackage: Sendable {
    /// What `nrfutil pkg generate` takes (its Zigbee options left out), under nrfutil's option names.
    public struct SecureOptions: Sendable {
        /// The application image.
        public var application: ImageFile?
        /// `--application-version`: a number, or `none`.
        public var applicationVersion: String?
        /// `--application-version-string`: `x.y.z`, stored as `x * 10000 + y * 100 + z`.
        public var applicationVersionString: String?
        /// The bootloader image.
        public var bootloader: ImageFile?
        /// `--bootloader-version`: a number, or `none`.
        public var bootloaderVersion: String?
        /// The SoftDevice image.
        public var softDevice: ImageFile?
        /// `--hw-version`: the hardware version (52 for nRF52 in Nordic's examples).
        public var hardwareVersion: String?
        /// `--sd-req`, once per time given: each a comma-separated list of SoftDevice firmware ids (nrfutil refuses
        /// the option twice).
        public var softDeviceRequirements: [String] = []
        /// `--sd-id`, once per time given: the new SoftDevice's firmware ids, for the application of a SoftDevice
        /// and application package.
        public var softDeviceIDs: [String] = []
        /// `--debug-mode`: set `is_debug`, so that debug bootloaders skip version checks.
        public var isDebug = false
        /// How the bootloader checks the application before booting it; `nil` for nrfutil's default.
        public var applicationBootValidation: BootValidation?
        /// How the bootloader checks the SoftDevice before booting it; `nil` for nrfutil's default.
        public var softDeviceBootValidation: BootValidation?
        /// `--external-app`: mark the application as external (not applied on the device).
        public var isExternalApplication = false

        /// No images and nrfutil's defaults.
        public init() {}
    }

    /// What `adafruit-nrfutil dfu genpkg` takes, with its defaults.
    public struct LegacyOptions: Sendable {
        /// The application image.
        public var application: ImageFile?
        /// The bootloader image.
        public var bootloader: ImageFile?
        /// The SoftDevice image.
        public var softDevice: ImageFile?
        /// `--application-version` (default 0xFFFFFFFF).
        public var applicationVersion = "4294967295"
        /// `--dev-type` (default 0xFFFF, any).
        public var deviceType = "65535"
        /// `--dev-revision` (default 0xFFFF, any).
        public var deviceRevision = "65535"
        /// `--sd-req`: a comma-separated list of SoftDevice firmware ids; `none` writes an empty list (default 0xFFFE).
        public var softDeviceRequirements = "65534"
        /// `--dfu-ver`: `0.5` (a CRC-16, the default) or `0.6` (extension id 0, then the CRC-16).
        public var dfuVersion = "0.5"

        /// No images and adafruit-nrfutil's defaults.
        public init() {}
    }

    /// The local time a package's zip entries record.
    public struct Timestamp: Sendable, Equatable {
        /// The year, such as 2026.
        public var year: Int
        /// The month, 1 to 12.
        public var month: Int
        /// The day of the month, 1 to 31.
        public var day: Int
        /// The hour, 0 to 23.
        public var hour: Int
        /// The minute, 0 to 59.
        public var minute: Int
        /// The second, 0 to 59.
        public var second: Int

        /// A time from its fields.
        ///
        /// - Parameters:
        ///   - year: The year.
        ///   - month: The month, 1 to 12.
        ///   - day: The day, 1 to 31.
        ///   - hour: The hour, 0 to 23.
        ///   - minute: The minute.
        ///   - second: The second.
        public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            self.year = year
            self.month = month
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
        }
    }

    /// One file of the package.
    public struct Entry: Sendable {
        /// The file's name in the zip, such as `nrf52832_xxaa.bin` or `manifest.json`.
        public let name: String
        /// The file's bytes.
        public let bytes: [UInt8]
    }

    let built: BuiltPackage

    /// Makes a Secure DFU package as nrfutil 6.1.7 `pkg generate` does.
    ///
    /// - Parameters:
    ///   - options: The images and init packet fields.
    ///   - signingKey: The key that signs the init packets; `nil` for an unsigned package (nrfutil warns).
    /// - Throws: ``UpdateError``: options nrfutil refuses (``ExitStatus/usage``), or images that are not valid
    ///   Intel HEX or hold no data (``ExitStatus/dataError``).
    public init(secure options: SecureOptions, signingKey: SigningKey? = nil) throws(UpdateError) {
        var engine = SecurePackageOptions()
        engine.application = options.application?.inputImage
        engine.applicationVersion = options.applicationVersion
        engine.applicationVersionString = options.applicationVersionString
        engine.bootloader = options.bootloader?.inputImage
        engine.bootloaderVersion = options.bootloaderVersion
        engine.softdevice = options.softDevice?.inputImage
        engine.hwVersion = options.hardwareVersion
        engine.sdReq = options.softDeviceRequirements
        engine.sdId = options.softDeviceIDs
        engine.debugMode = options.isDebug
        engine.appBootValidation = options.applicationBootValidation?.validationType
        engine.sdBootValidation = options.softDeviceBootValidation?.validationType
        engine.externalApp = options.isExternalApplication
        let signer = try signingKey?.initPacketSigner()
        built = try UpdateError.wrapping { try SecurePackageBuilder.build(engine, signer: signer) }
    }

    /// Makes a legacy DFU package (nRF5 SDK 7 to 11 bootloaders) as adafruit-nrfutil 0.5.3.post16 `dfu genpkg`
    /// does.
    ///
    /// - Parameter options: The images and init packet fields.
    /// - Throws: ``UpdateError``: options the tool refuses (``ExitStatus/usage``), or bad images
    ///   (``ExitStatus/dataError``).
    public init(legacy options: LegacyOptions) throws(UpdateError) {
        var engine = LegacyPackageOptions()
        engine.application = options.application?.inputImage
        engine.bootloader = options.bootloader?.inputImage
        engine.softdevice = options.softDevice?.inputImage
        engine.applicationVersion = options.applicationVersion
        engine.devType = options.deviceType
        engine.devRevision = options.deviceRevision
        engine.sdReq = options.softDeviceRequirements
        engine.dfuVersion = options.dfuVersion
        built = try UpdateError.wrapping { try LegacyPackageBuilder.build(engine) }
    }

    /// The package's files in the order they are written, `manifest.json` last.
    public var entries: [Entry] { built.entries.map { Entry(name: $0.name, bytes: $0.bytes) } }

    /// The names of the images in the package (neither init packets nor the manifest).
    public var imageNames: [String] {
        built.entries.map(\.name).filter { !$0.hasSuffix(".dat") && $0 != "manifest.json" }
    }

    /// A warning nrfutil prints for a package's options.
    public enum Warning: Sendable, Equatable, CustomStringConvertible {
        /// ``SecureOptions/isDebug``: only a debug bootloader takes the package.
        case debugMode
        /// No signing key: the package is unsigned, for open bootloaders only.
        case unsigned
        /// Both ``SecureOptions/applicationVersion`` and ``SecureOptions/applicationVersionString``: the string is
        /// used.
        case bothApplicationVersions

        init(_ warning: PackageWarning) {
            switch warning {
            case .debugMode: self = .debugMode
            case .unsigned: self = .unsigned
            case .bothApplicationVersions: self = .bothApplicationVersions
            }
        }

        /// The warning in this library's words, one line starting with `warning: `.
        public var description: String {
            switch self {
            case .debugMode: PackageWarning.debugMode.description
            case .unsigned: PackageWarning.unsigned.description
            case .bothApplicationVersions: PackageWarning.bothApplicationVersions.description
            }
        }
    }

    /// The warnings nrfutil prints for these options (debug mode, no signing key, both version options), one line
    /// each, in this library's words.
    public var warnings: [String] { built.warnings.map(\.description) }

    /// The same warnings, typed, for a front end that names the options its own way.
    public var warningKinds: [Warning] { built.warnings.map(Warning.init) }

    /// The package as a zip archive.
    ///
    /// - Parameter timestamp: The local time every entry records.
    /// - Returns: The archive's bytes.
    /// - Throws: ``UpdateError`` (``ExitStatus/dataError``) past the classic zip limits (4 GiB, 65535 entries).
    public func zipArchive(timestamp: Timestamp) throws(UpdateError) -> [UInt8] {
        try UpdateError.wrapping {
            try built.archive(
                year: timestamp.year, month: timestamp.month, day: timestamp.day, hour: timestamp.hour,
                minute: timestamp.minute, second: timestamp.second)
        }
    }
}

import ArgumentParser
import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader package`: nrfutil 6.1.7 `pkg generate` (Secure DFU), or adafruit-nrfutil `dfu genpkg` with
/// `--dfu legacy`.
struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Make a DFU package (.zip), as nrfutil 6.1.7 'pkg generate' does.",
        discussion: """
            Options, defaults and rules are nrfutil 6.1.7's, so scripts only change the program name; the images, \
            manifest.json and init packets are the ones nrfutil writes for the same inputs. Inputs are .hex (the MBR \
            and UICR dropped, padded to 4 bytes with 0xFF) or .bin. nrfutil's Zigbee options (--zigbee and \
            --zigbee-*) are left out. With --dfu legacy the package is the one adafruit-nrfutil 0.5.3.post16 \
            'dfu genpkg' writes (SDK 7-11 bootloaders), with --dev-type, --dev-revision, --application-version, \
            --sd-req and --dfu-ver 0.5 or 0.6. The zip is written to a temporary file and renamed into place.
            """
    )

    enum DFU: String, ExpressibleByArgument, CaseIterable {
        case secure
        case legacy
    }

    /// nrfutil's boot validation names.
    enum BootValidation: String, ExpressibleByArgument, CaseIterable {
        case none = "NO_VALIDATION"
        case crc = "VALIDATE_GENERATED_CRC"
        case sha256 = "VALIDATE_GENERATED_SHA256"
        case ecdsa = "VALIDATE_ECDSA_P256_SHA256"

        var validation: NRFLoaderKit.BootValidation {
            switch self {
            case .none: .none
            case .crc: .generatedCRC
            case .sha256: .generatedSHA256
            case .ecdsa: .ecdsaP256SHA256
            }
        }
    }

    @Argument(help: "The package to write.")
    var zipfile: String

    @Option(help: "The DFU protocol: secure (nrfutil 6.1.7, SDK 12+) or legacy (adafruit-nrfutil, SDK 7-11).")
    var dfu: DFU = .secure

    @Flag(name: .customLong("debug-mode"), help: "Set is_debug (debug bootloaders then skip version checks).")
    var debugMode = false

    @Option(help: "The application firmware (.hex or .bin).")
    var application: String?

    @Option(name: .customLong("application-version"), help: "The application version (or 'none').")
    var applicationVersion: String?

    @Option(
        name: .customLong("application-version-string"),
        help: "The application version as x.y.z, stored as x*10000 + y*100 + z.")
    var applicationVersionString: String?

    @Option(help: "The bootloader firmware (.hex or .bin).")
    var bootloader: String?

    @Option(name: .customLong("bootloader-version"), help: "The bootloader version (or 'none').")
    var bootloaderVersion: String?

    @Option(help: "The SoftDevice firmware (.hex or .bin).")
    var softdevice: String?

    @Option(name: .customLong("hw-version"), help: "The hardware version (52 for nRF52 in Nordic's examples).")
    var hwVersion: String?

    @Option(
        name: .customLong("sd-req"),
        help: "Accepted SoftDevice firmware ids, comma-separated, e.g. 0x0101 (S132 7.2.0); 0x00 for none.")
    var sdReq: [String] = []

    @Option(
        name: .customLong("sd-id"),
        help: "The new SoftDevice's firmware ids, for the application in a SoftDevice + application package.")
    var sdId: [String] = []

    @Option(name: .customLong("sd-boot-validation"), help: "The SoftDevice's boot validation.")
    var sdBootValidation: BootValidation?

    @Option(name: .customLong("app-boot-validation"), help: "The application's boot validation.")
    var appBootValidation: BootValidation?

    @Option(name: .customLong("key-file"), help: "The private signing key (PEM, from 'nrfloader keys generate').")
    var keyFile: String?

    @Flag(name: .customLong("external-app"), help: "Mark the application as external (not applied on the device).")
    var externalApp = false

    @Option(name: .customLong("dev-type"), help: "Legacy: the device type (default 0xFFFF).")
    var devType: String?

    @Option(name: .customLong("dev-revision"), help: "Legacy: the device revision (default 0xFFFF).")
    var devRevision: String?

    @Option(name: .customLong("dfu-ver"), help: "Legacy: the init packet version, 0.5 (CRC-16, default) or 0.6.")
    var dfuVer: String?

    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors.")
    var quiet = false

    func run() throws {
        let package: FirmwarePackage
        do {
            switch dfu {
            case .secure:
                let options = try secureOptions()
                package = try FirmwarePackage(secure: options, signingKey: try signingKey())
            case .legacy: package = try FirmwarePackage(legacy: try legacyOptions())
            }
        } catch let error as UpdateError {
            throw error.namingPackagingOptions(Self.flag)
        }
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        let archive = try package.zipArchive(
            timestamp: FirmwarePackage.Timestamp(
                year: Int(local.tm_year) + 1900, month: Int(local.tm_mon) + 1, day: Int(local.tm_mday),
                hour: Int(local.tm_hour), minute: Int(local.tm_min), second: Int(local.tm_sec)))
        let output = try OutputFile(path: zipfile)
        try output.write(archive)
        try output.commit()
        guard !quiet else { return }
        for warning in package.warningKinds { Console.note(Self.text(of: warning)) }
        Console.note("\(output.displayName): \(package.imageNames.joined(separator: ", ")), \(archive.count) bytes")
    }

    /// The option that sets each packaging option, as messages name it.
    static func flag(_ option: PackagingOption) -> String {
        switch option {
        case .application: "--application"
        case .applicationVersion: "--application-version"
        case .applicationVersionString: "--application-version-string"
        case .bootloader: "--bootloader"
        case .bootloaderVersion: "--bootloader-version"
        case .softDevice: "--softdevice"
        case .hardwareVersion: "--hw-version"
        case .softDeviceRequirements: "--sd-req"
        case .softDeviceIDs: "--sd-id"
        case .isExternalApplication: "--external-app"
        case .signingKey: "--key-file"
        case .deviceType: "--dev-type"
        case .deviceRevision: "--dev-revision"
        case .dfuVersion: "--dfu-ver"
        case .settingsVersion: "--bl-settings-version"
        case .backupAddress: "--backup-address"
        case .includesBackup: "--no-backup"
        case .applicationBootValidation: "--app-boot-validation"
        case .softDeviceBootValidation: "--sd-boot-validation"
        }
    }

    /// nrfutil's warning, naming this command's options.
    static func text(of warning: FirmwarePackage.Warning) -> String {
        switch warning {
        case .debugMode: "warning: debug mode: the bootloader must be a debug build to accept this package"
        case .unsigned: "warning: no --key-file: the package is unsigned, for open bootloaders only"
        case .bothApplicationVersions:
            "warning: both --application-version-string and --application-version given; only the string is used"
        }
    }

    private func image(_ path: String?) throws(UpdateError) -> ImageFile? {
        try path.map { path throws(UpdateError) in try ImageFile(contentsOfFile: path) }
    }

    private func secureOptions() throws -> FirmwarePackage.SecureOptions {
        for (name, value) in [("--dev-type", devType), ("--dev-revision", devRevision), ("--dfu-ver", dfuVer)]
        where value != nil {
            throw usageFailure("\(name) applies to --dfu legacy only")
        }
        var options = FirmwarePackage.SecureOptions()
        options.application = try image(application)
        options.applicationVersion = applicationVersion
        options.applicationVersionString = applicationVersionString
        options.bootloader = try image(bootloader)
        options.bootloaderVersion = bootloaderVersion
        options.softDevice = try image(softdevice)
        options.hardwareVersion = hwVersion
        options.softDeviceRequirements = sdReq
        options.softDeviceIDs = sdId
        options.isDebug = debugMode
        options.applicationBootValidation = appBootValidation?.validation
        options.softDeviceBootValidation = sdBootValidation?.validation
        options.isExternalApplication = externalApp
        return options
    }

    private func signingKey() throws(UpdateError) -> SigningKey? {
        try keyFile.map { path throws(UpdateError) in try SigningKey(contentsOfFile: path) }
    }

    private func legacyOptions() throws -> FirmwarePackage.LegacyOptions {
        let secureOnly: [(String, Bool)] = [
            ("--application-version-string", applicationVersionString != nil),
            ("--bootloader-version", bootloaderVersion != nil), ("--hw-version", hwVersion != nil),
            ("--sd-id", !sdId.isEmpty), ("--sd-boot-validation", sdBootValidation != nil),
            ("--app-boot-validation", appBootValidation != nil), ("--debug-mode", debugMode),
            ("--external-app", externalApp),
            ("--key-file", keyFile != nil),
        ]
        for (name, given) in secureOnly where given {
            let why = name == "--key-file" ? " (adafruit-nrfutil 0.5.3.post16 cannot sign on Python 3)" : ""
            throw usageFailure("\(name) applies to --dfu secure only\(why)")
        }
        guard sdReq.count <= 1 else { throw usageFailure("--sd-req: give the list once, comma-separated") }
        var options = FirmwarePackage.LegacyOptions()
        options.application = try image(application)
        options.bootloader = try image(bootloader)
        options.softDevice = try image(softdevice)
        if let applicationVersion { options.applicationVersion = applicationVersion }
        if let devType { options.deviceType = devType }
        if let devRevision { options.deviceRevision = devRevision }
        if let sdReq = sdReq.first { options.softDeviceRequirements = sdReq }
        if let dfuVer { options.dfuVersion = dfuVer }
        return options
    }
}

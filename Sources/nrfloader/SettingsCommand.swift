import ArgumentParser
import NRFLoaderKit

/// `nrfloader settings`: nrfutil 6.1.7 `settings generate` and `settings display`.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Make or show a bootloader settings page (.hex); read and write an SMP device's settings.",
        discussion: """
            generate and display work on nRF5 bootloader settings pages, as nrfutil 6.1.7 'settings' does. read, \
            write, delete, commit, load and save reach an SMP (MCUmgr) device's settings (Zephyr's settings \
            management group).
            """,
        subcommands: [
            Generate.self, Display.self, Read.self, Write.self, Delete.self, Commit.self, Load.self, Save.self,
        ]
    )

    /// `settings generate [options] HEXFILE`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write the bootloader settings page for production programming.",
            discussion: """
                The page (and its backup one page below, unless --no-backup) is byte-identical to nrfutil's for the \
                same inputs. Unlike nrfutil 6.1.7, which refuses --backup-address whenever it is given, \
                --backup-address is honoured (and refused only with --no-backup). The file is written to a \
                temporary file and renamed into place.
                """
        )

        @Argument(help: "The settings .hex file to write.")
        var hexFile: String

        @Option(help: "NRF51, NRF52, NRF52QFAB, NRF52810 or NRF52840.")
        var family: String

        @Option(help: "The application in flash (.hex or .bin).")
        var application: String?

        @Option(name: .customLong("application-version"), help: "The application version (or 'none').")
        var applicationVersion: String?

        @Option(name: .customLong("application-version-string"), help: "The application version as x.y.z.")
        var applicationVersionString: String?

        @Option(name: .customLong("bootloader-version"), help: "The bootloader version.")
        var bootloaderVersion: String

        @Option(name: .customLong("bl-settings-version"), help: "1 (SDK 12.0-15.2) or 2 (SDK 15.3+).")
        var blSettingsVersion: String

        @Option(name: .customLong("start-address"), help: "The settings page address (default: the family's).")
        var startAddress: String?

        @Flag(name: .customLong("no-backup"), help: "Leave out the backup page.")
        var noBackup = false

        @Option(name: .customLong("backup-address"), help: "The backup page address (default: one page below).")
        var backupAddress: String?

        @Option(name: .customLong("app-boot-validation"), help: "The application's boot validation.")
        var appBootValidation: PackageCommand.BootValidation?

        @Option(name: .customLong("sd-boot-validation"), help: "The SoftDevice's boot validation.")
        var sdBootValidation: PackageCommand.BootValidation?

        @Option(help: "The SoftDevice in flash (.hex).")
        var softdevice: String?

        @Option(name: .customLong("key-file"), help: "The private key, for VALIDATE_ECDSA_P256_SHA256.")
        var keyFile: String?

        func run() throws {
            let options = try options()
            let signingKey = try keyFile.map { path throws(UpdateError) in try SigningKey(contentsOfFile: path) }
            let page: BootloaderSettingsPage
            do {
                page = try BootloaderSettingsPage(generating: options, signingKey: signingKey)
            } catch {
                throw error.namingPackagingOptions(Self.flag)
            }
            let output = try OutputFile(path: hexFile)
            try output.write(Array(page.intelHexText.utf8))
            try output.commit()
            if !noBackup {
                Console.note(
                    "note: the page includes a backup page (bootloaders from SDK 15.1 on); --no-backup leaves it out")
            }
            Console.result(
                "\nGenerated Bootloader DFU settings .hex file and stored it in: \(hexFile)\n"
                    + page.displayText(file: hexFile))
        }

        /// The option that sets each settings option, as messages name it: the application version is given either
        /// way.
        static func flag(_ option: PackagingOption) -> String {
            option == .applicationVersion
                ? "--application-version or --application-version-string" : PackageCommand.flag(option)
        }

        private func options() throws -> BootloaderSettingsPage.Options {
            guard let family = BootloaderSettingsPage.Family(rawValue: family) else {
                throw usageFailure("--family: \(family) is not one of NRF51, NRF52, NRF52QFAB, NRF52810, NRF52840")
            }
            func integer(_ text: String, _ option: String) throws(UpdateError) -> UInt32 {
                try NrfutilInteger.parse(text, name: option)
            }
            var options = BootloaderSettingsPage.Options(
                family: family, bootloaderVersion: try integer(bootloaderVersion, "--bootloader-version"),
                settingsVersion: try integer(blSettingsVersion, "--bl-settings-version"))
            if let text = applicationVersionString, !text.isEmpty {
                options.applicationVersion = try NrfutilInteger.parseVersionString(
                    text, name: "--application-version-string")
            } else if let text = applicationVersion, text.lowercased() != "none" {
                options.applicationVersion = try integer(text, "--application-version")
            }
            options.application = try application.map { path throws(UpdateError) in
                try ImageFile(contentsOfFile: path)
            }
            options.softDevice = try softdevice.map { path throws(UpdateError) in try ImageFile(contentsOfFile: path) }
            options.startAddress = try startAddress.map { text throws(UpdateError) in
                try integer(text, "--start-address")
            }
            options.includesBackup = !noBackup
            options.backupAddress = try backupAddress.map { text throws(UpdateError) in
                try integer(text, "--backup-address")
            }
            options.applicationBootValidation = appBootValidation?.validation
            options.softDeviceBootValidation = sdBootValidation?.validation
            return options
        }
    }

    /// `settings display HEXFILE`.
    struct Display: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "display",
            abstract: "Show the bootloader settings page in a .hex file (one nrfutil or nrfloader made)."
        )

        @Argument(help: "The .hex file.")
        var hexFile: String

        func run() throws {
            let read = try BootloaderSettingsPage.read(fromHexFile: hexFile)
            // nrfutil prints why the nRF52 address held no page before showing one found further on.
            if let note = read.note { Console.result(note) }
            Console.result(read.page.displayText(file: hexFile))
        }
    }
}

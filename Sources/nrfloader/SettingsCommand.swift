import ArgumentParser
import BootloaderSettings
import DFUPackage
import DFUSigning
import NRFLoaderKit
import PackageBuilder

/// `nrfloader settings`: nrfutil 6.1.7 `settings generate` and `settings display`.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Make or show a bootloader settings page (.hex), as nrfutil 6.1.7 'settings' does.",
        subcommands: [Generate.self, Display.self]
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
            let page = try BootloaderSettingsPage(generating: try options(), signer: try signer())
            let output = try OutputFile(path: hexFile)
            try output.write(Array(page.hexText.utf8))
            try output.commit()
            if !noBackup {
                Console.note(
                    "note: the page includes a backup page (bootloaders from SDK 15.1 on); --no-backup leaves it out")
            }
            Console.result(
                "\nGenerated Bootloader DFU settings .hex file and stored it in: \(hexFile)\n"
                    + page.description(file: hexFile))
        }

        private func options() throws -> BootloaderSettingsPage.Options {
            guard let family = BootloaderSettingsPage.Family(rawValue: family) else {
                throw PackageBuilderError.usage(
                    "--family: \(family) is not one of NRF51, NRF52, NRF52QFAB, NRF52810, NRF52840")
            }
            func integer(_ text: String, _ option: String) throws -> UInt32 {
                UInt32(try NordicInteger.parse(text, option: option))
            }
            var options = BootloaderSettingsPage.Options(
                family: family, bootloaderVersion: try integer(bootloaderVersion, "--bootloader-version"),
                settingsVersion: try integer(blSettingsVersion, "--bl-settings-version"))
            if let text = applicationVersionString, !text.isEmpty {
                options.applicationVersion = try NordicInteger.versionString(text)
            } else if let text = applicationVersion, text.lowercased() != "none" {
                options.applicationVersion = try integer(text, "--application-version")
            }
            if let application {
                options.application = InputImage(
                    path: application, contents: try InputFile(path: application).readAll())
            }
            if let softdevice {
                options.softdevice = InputImage(path: softdevice, contents: try InputFile(path: softdevice).readAll())
            }
            options.startAddress = try startAddress.map { try integer($0, "--start-address") }
            options.noBackup = noBackup
            options.backupAddress = try backupAddress.map { try integer($0, "--backup-address") }
            options.appBootValidation = appBootValidation?.type
            options.sdBootValidation = sdBootValidation?.type
            return options
        }

        private func signer() throws -> InitPacketSigner? {
            guard let keyFile else { return nil }
            return try InitPacketSigner(
                pem: String(decoding: try InputFile(path: keyFile).readAll(), as: UTF8.self), file: keyFile)
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
            do {
                let read = try BootloaderSettingsPage.read(try InputFile(path: hexFile).readAll(), path: hexFile)
                // nrfutil prints why the nRF52 address held no page before showing one found further on.
                if let note = read.note { Console.result(note) }
                Console.result(read.page.description(file: hexFile))
            } catch let error as PackageBuilderError {
                // A page that cannot be read is bad data (65), even where `read` files it as a usage error.
                Console.reportError("\(error)", status: ExitStatus.dataError.rawValue, json: false)
                throw ExitCode(ExitStatus.dataError.rawValue)
            }
        }
    }
}

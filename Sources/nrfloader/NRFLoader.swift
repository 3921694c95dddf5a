import ArgumentParser
import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// The root command: parses the command line, runs the subcommand and turns its error into an exit status.
@main
struct NRFLoader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nrfloader",
        abstract: "Update Nordic device firmware (nRF5 SDK DFU, MCUboot over SMP) over Bluetooth LE and serial ports.",
        discussion: overview + "\n\n" + ExitStatus.helpTable,
        version: BuildVersion.text,
        subcommands: [
            ListCommand.self, InfoCommand.self, ConvertCommand.self, ScanCommand.self, UploadCommand.self,
            SimulateCommand.self, SimulateSerialCommand.self, SimulateUDPCommand.self, PackageCommand.self,
            KeysCommand.self, SettingsCommand.self, ServeCommand.self,
            // The mcumgr-style SMP verbs (issue 20).
            ImageCommand.self, ResetCommand.self, EchoCommand.self,
            // The other management groups.
            OSCommand.self, FSCommand.self, ShellCommand.self, StatCommand.self, EnumCommand.self,
            StorageEraseCommand.self,
        ]
    )

    /// What the tool does, before the exit status table in `--help` and in the DESCRIPTION of nrfloader(1).
    ///
    /// No wrapped line may start with capitals and a colon: `scripts/check-man-pages.py` reads such a line as a
    /// section title of `--help`.
    static let overview = """
        nrfloader speaks two update protocols. nRF5 SDK DFU (Secure DFU, SDK 12-17; legacy DFU, SDK 4-11; \
        buttonless entry) updates nRF51 and nRF52 devices through their Nordic bootloader. SMP (MCUmgr) updates \
        Zephyr and nRF Connect SDK applications on MCUboot, and MCUboot in serial recovery: signed MCUboot images \
        and dfu_application.zip packages, with the image, reset and echo verbs. A device is reached over \
        Bluetooth LE through BlueZ (--target ADDRESS or --name NAME, --adapter hciN), over a serial port or USB \
        CDC (--port PATH), or simulated in-process (--target sim, sim:buttonless, sim:legacy, sim:smp). \
        nrfloader also converts Intel HEX images, makes nrfutil-compatible packages, keys and settings pages, \
        and carries a catalog of example firmware for Nordic development kits.
        """

    static func main() async {
        let json = jsonRequested(in: CommandLine.arguments)
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exitAfterArgumentError(error, json: json)
        }
        Interrupts.install(json: json)
        do {
            var command = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Console.finishWithResult()
        } catch {
            // Help, version and validation requests travel as ArgumentParser's own (partly internal) error types.
            if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
                exitAfterArgumentError(error, json: json)
            }
            let status = ExitStatus(for: error).rawValue
            let message = (error as? UpdateError)?.commandLineMessage ?? "\(error)"
            Console.reportError(message, status: status, json: json)
            Glibc.exit(status)
        }
    }

    /// Whether `--json` is among the options (before a `--` that ends them), read from the raw arguments so that a
    /// command line ArgumentParser refuses still gets its JSON verdict.
    static func jsonRequested(in arguments: [String]) -> Bool {
        arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// Exits as ArgumentParser would (help and version on stdout with 0; a usage error on stderr with its status),
    /// adding the final `error` object for a failure when `--json` was given.
    private static func exitAfterArgumentError(_ error: any Error, json: Bool) -> Never {
        let status = exitCode(for: error).rawValue
        guard status != 0, json else { exit(withError: error) }
        let message = fullMessage(for: error)
        let firstLine = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
        let text = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
        Console.reportError(text, status: status, json: true)
        let rest = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst()
        if let rest = rest.first, !rest.isEmpty { Console.note(String(rest)) }
        Glibc.exit(status)
    }
}

import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// The root command: parses the command line, runs the subcommand and turns its error into an exit status.
@main
struct NRFLoader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nrfloader",
        abstract: "Update the firmware of Nordic nRF5 devices over Bluetooth LE, and convert their images.",
        discussion: ExitStatus.helpTable,
        version: "0.1.0",
        subcommands: [
            ListCommand.self, InfoCommand.self, ConvertCommand.self, ScanCommand.self, UploadCommand.self,
            SimulateCommand.self, SimulateSerialCommand.self,
        ]
    )

    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        Interrupts.install()
        do {
            var command = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Help, version and validation requests travel as ArgumentParser's own (partly internal) error types.
            if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") { exit(withError: error) }
            Console.note("Error: \(error)")
            Glibc.exit(ExitStatus(for: error).rawValue)
        }
    }
}

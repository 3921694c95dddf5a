import ArgumentParser
import NRFLoaderKit

/// `nrfloader shell exec -- CMD…`: a command on the device's shell over SMP.
struct ShellCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell", abstract: "Run commands on an SMP (MCUmgr) device's shell.", subcommands: [Exec.self])

    /// `shell exec -- CMD…`.
    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "Run one shell command on the device and print its output (CONFIG_MCUMGR_GRP_SHELL).",
            discussion: """
                Prints what the command printed on stdout. The command's status (0 for success, a negative errno \
                otherwise: -8 for an unknown command) goes to stderr when it is not 0, and into --json's 'status'; \
                nrfloader exits 0 whenever the device ran the command and answered. The request is sent once: a \
                command whose answer is lost is not run again.
                """)

        @Argument(parsing: .captureForPassthrough, help: "The command and its arguments (after --).")
        var command: [String] = []

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func validate() throws {
            if arguments.isEmpty {
                throw ValidationError("give the command after --, e.g. shell exec -- kernel version")
            }
        }

        /// The command without the `--` that ends the options.
        private var arguments: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

        func run() async throws {
            let arguments = arguments
            let reply = try await device.send { try await $0.executeShellCommand(arguments) }
            let result = reply.value
            var text = SMPGroupOutput.lines(result.output)
            if text.hasSuffix("\n") { text.removeLast() }
            SMPGroupOutput.emit(
                "shell exec", device, attempts: reply.attempts,
                [
                    "argv": .array(arguments.map { .string($0) }), "output": .string(result.output),
                    "status": .int(result.status),
                ],
                text: text)
            if result.status != 0, !device.output.json {
                Console.note("the command returned status \(result.status)")
            }
        }
    }
}

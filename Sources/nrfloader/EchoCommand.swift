import ArgumentParser
import NRFLoaderKit

/// `nrfloader echo TEXT`: OS echo over SMP.
struct EchoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Send a text to an SMP (MCUmgr) device and print what it echoes.")

    @Argument(help: "The text to send.")
    var text: String

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let text = text
        let reply = try await device.send { try await $0.echo(text) }
        SMPVerbOutput.echoed(reply, device: device)
    }
}

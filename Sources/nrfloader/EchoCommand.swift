import ArgumentParser
import NRFLoaderKit
import SMP

/// `nrfloader echo TEXT`: OS echo over SMP.
struct EchoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Send a text to an SMP (MCUmgr) device and print what it echoes.")

    @Argument(help: "The text to send.")
    var text: String

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let result = try await device.exchange(.echo(text))
        guard case .echoed(let echoed) = result.reply else { preconditionFailure("echo ended with \(result.reply)") }
        SMPVerbOutput.echoed(echoed, device: device, attempts: result.attempts)
    }
}

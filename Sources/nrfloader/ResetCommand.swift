import ArgumentParser
import NRFLoaderKit

/// `nrfloader reset`: OS reset over SMP, waiting for the link to drop as a reset implies.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Reset an SMP (MCUmgr) device and wait, up to --timeout, for its link to drop.",
        discussion: """
            MCUboot then swaps to an image marked with 'image test' or 'image confirm HASH'. Over --port the reset \
            shows as the console's boot banner (or the USB port vanishing); a device that answers but never drops \
            the link exits 75.
            """)

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let reply = try await device.send { try await $0.reset() }
        SMPVerbOutput.reset(reply, device: device)
    }
}

import ArgumentParser
import NRFLoaderSimulator

extension SimulateCommand {
    /// The options `--kind smp` takes; the DFU-only ones are refused rather than ignored.
    func validateSMP() throws {
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        guard (1...16).contains(smpImages) else { throw ValidationError("--smp-images must be 1 to 16") }
        let dfuOnly: [(String, Bool)] = [
            ("--key", key != nil), ("--sd-id", softDevice != nil), ("--flash nrf51", flash == .nrf51),
        ]
        if let (option, _) = dfuOnly.first(where: \.1) {
            throw ValidationError("\(option) does not apply to --kind smp")
        }
        for text in simFault {
            guard case .unsupported = SimulatedDeviceKind.smp.faultProblem(text) else { continue }
            throw ValidationError(
                "--sim-fault '\(text)' is not simulated for --kind smp (supported: drop-packet, drop-notification, "
                    + "duplicate-notification, disconnect, reboot, stall, respond, mtu)")
        }
    }
}

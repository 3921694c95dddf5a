import ArgumentParser
import NRFLoaderKit
import NRFLoaderSimulator

extension UploadCommand {
    /// Rejects `--sim-fault` kinds the SMP device does not simulate (exit 64, before anything runs).
    func validateSMPSimulation() throws {
        for text in simulatorOptions.simFault {
            switch SimulatedDeviceKind.smp.faultProblem(text) {
            case .malformed(let message)?: throw ValidationError("--sim-fault: \(message)")
            case .unsupported(let reason)?: throw ValidationError("--sim-fault '\(text)' \(reason)")
            case nil: break
            }
        }
    }
}

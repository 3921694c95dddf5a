import ArgumentParser
import DFUSimulator
import DeviceLink
import NRFLoaderKit
import SMPSimulator

extension UploadCommand {
    /// Rejects `--sim-fault` kinds the SMP device does not simulate (exit 64, before anything runs).
    func validateSMPSimulation() throws {
        for text in simulatorOptions.simFault {
            if let reason = SimulatedSMPTransport.unsupportedReason(try FaultSpecification.parse(text)) {
                throw ValidationError("--sim-fault '\(text)' \(reason)")
            }
        }
    }
}

import BlueZ
import DFUController
import NRFLoaderKit
import SMP

// What the simulate and simulate-serial commands still take from the engine's `package` declarations, kept out of
// the files of the commands that are clients of the public library (upload, scan and the shared helpers). It goes
// when those commands are converted too.

extension ExitStatus {
    /// The status of an engine error that reached the top of a command without passing through the public library
    /// (the simulate commands drive the engine directly), or `nil` for an error the engine does not know.
    static func engineStatus(of error: any Error) -> ExitStatus? {
        if let status = ExitStatus.of(error) { return status }
        if error is BlueZError { return .unavailable }
        return nil
    }
}

extension EngineOptions {
    /// The DFU engine's policy.
    var configuration: DFUConfiguration { updateOptions.dfuConfiguration }
}

extension SMPOptions {
    /// The upload policy from these options and the engine's `--timeout` and `--retries`.
    func configuration(_ engine: EngineOptions) -> SMPUploadConfiguration {
        updateOptions(engine).smpConfiguration
    }
}

extension SimulatedParameters {
    /// The parameters as the simulated SMP device takes them.
    var parameters: MCUmgrParameters { MCUmgrParameters(bufferSize: bufferSize, bufferCount: bufferCount) }
}

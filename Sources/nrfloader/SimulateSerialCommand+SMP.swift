import ArgumentParser
import NRFLoaderSimulator

extension SimulateSerialCommand {
    /// The options `--protocol smp` takes; the DFU-only ones are refused rather than ignored.
    func validateSMP() throws {
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        guard (1...16).contains(smpImages) else { throw ValidationError("--smp-images must be 1 to 16") }
        if let smpLineBuffers, !(1...64).contains(smpLineBuffers) {
            throw ValidationError("--smp-line-buffers must be 1 to 64")
        }
        let dfuOnly: [(String, Bool)] = [
            ("--key", key != nil), ("--sd-id", softDevice != nil), ("--serial-fault", !serialFault.isEmpty),
            ("--sim-fault", !simFault.isEmpty),
        ]
        if let (option, _) = dfuOnly.first(where: \.1) {
            throw ValidationError("\(option) does not apply to --protocol smp")
        }
    }
}

/// `--smp-misbehave KIND`: one of ``SMPMisbehaviour``'s values.
struct SMPMisbehaviourArgument: ExpressibleByArgument {
    let misbehaviour: SMPMisbehaviour

    init?(argument: String) {
        guard let misbehaviour = SMPMisbehaviour(rawValue: argument) else { return nil }
        self.misbehaviour = misbehaviour
    }

    static var allValueStrings: [String] { SMPMisbehaviour.allCases.map(\.rawValue) }

    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

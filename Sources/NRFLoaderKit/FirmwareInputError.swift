package import DFUController
package import DFUPackage

/// Why an input cannot be turned into an update.
package enum FirmwareInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Secure DFU init packet for a bare image needs a value the user did not give (and no catalog entry has).
    case missingOption(input: String, option: String, reason: String)
    /// The image holds no data.
    case emptyImage(input: String)
    /// The package or image failed a check of the DFU package layer.
    case package(DFUPackageError)
    /// The firmware does not fit the DFU engine's rules (sizes).
    case firmware(input: String, DFUError)
    /// A catalog entry has no init packet fields for the protocol asked for.
    case protocolNotInCatalog(id: String, protocolName: String)
    /// A verification key was given and a part's signature is missing or does not verify.
    case signature(input: String, part: String, problem: String)
    /// The catalog entry is a signed MCUboot image, which only an SMP target takes.
    case mcubootImage(id: String)

    package var description: String {
        switch self {
        case .missingOption(let input, let option, let reason):
            "\(input): \(reason); give \(option)"
        case .emptyImage(let input):
            "\(input): the image holds no data"
        case .package(let error):
            "\(error)"
        case .firmware(let input, let error):
            "\(input): \(error)"
        case .protocolNotInCatalog(let id, let protocolName):
            "catalog entry '\(id)' has no '\(protocolName)' DFU fields; choose the other protocol with "
                + "FirmwareOptions.dfuProtocol"
        case .signature(let input, let part, let problem):
            "\(input)/\(part): init packet signature \(problem)"
        case .mcubootImage(let id):
            "catalog entry '\(id)' is a signed MCUboot image, which updates over SMP, not nRF5 DFU: use the "
                + "simulated SMP device (sim:smp), a serial port, or a device that offers the SMP service"
        }
    }
}

import DFUController
import DFUTargetAdapter

/// A DFU that did not complete, with the exit status that tells a CI job whether to retry.
struct UploadFailure: Error, Sendable, CustomStringConvertible {
    var error: DFUError
    var transportError: GATTTransportError?
    /// Whether the device was connected at some point: one that then vanishes is a temporary failure, not an
    /// absent device.
    var deviceWasReached = false

    var description: String { "\(error)" }

    var exitStatus: ExitStatus {
        switch error {
        case .cancelled: .interrupted
        case .rejected, .protocolViolation: .protocolError
        case .firmwareUnsuitable, .invalidFirmware: .dataError
        case .noDFUService: .unavailable
        case .timedOut, .crcMismatchPersisted, .reconnectsExhausted: .temporaryFailure
        case .transport:
            switch transportError {
            case .deviceNotFound: deviceWasReached ? .temporaryFailure : .unavailable
            case .unavailable: .unavailable
            case .rejected: .protocolError
            case .linkLost, .timedOut, .failed, nil: .temporaryFailure
            }
        }
    }
}

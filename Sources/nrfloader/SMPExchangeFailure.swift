import NRFLoaderKit
import SMP

/// An SMP management request that did not get its answer, with its exit status.
struct SMPExchangeFailure: Error, Sendable, CustomStringConvertible {
    /// What failed.
    var error: SMPExchangeError
    /// Whether any connection succeeded.
    var deviceWasReached: Bool

    var description: String { "\(error)" }

    /// 76 for a device that refused or broke the protocol, 75 for a lost link or a timeout, 69 for a device that was
    /// never reached, 130 for an interrupt.
    var exitStatus: ExitStatus {
        switch error {
        case .cancelled: .interrupted
        case .rejected, .protocolViolation, .notApplied: .protocolError
        case .timedOut: deviceWasReached ? .temporaryFailure : .unavailable
        case .transport(let failure): failure.exitStatus(deviceWasReached: deviceWasReached)
        }
    }
}

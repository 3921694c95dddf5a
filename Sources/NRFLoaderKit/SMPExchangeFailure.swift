package import SMP

/// An SMP management request that did not get its answer, with its exit status.
package struct SMPExchangeFailure: Error, Sendable, CustomStringConvertible {
    /// What failed.
    package var error: SMPExchangeError
    /// Whether any connection succeeded.
    package var deviceWasReached: Bool

    package init(error: SMPExchangeError, deviceWasReached: Bool) {
        self.error = error
        self.deviceWasReached = deviceWasReached
    }

    package var description: String { "\(error)" }

    /// 76 for a device that refused, broke the protocol or did not apply a state change; 75 for a lost link or a
    /// timeout; 69 for a device that was never reached; 130 for an interrupt.
    package var exitStatus: ExitStatus {
        switch error {
        case .cancelled: .interrupted
        case .rejected, .protocolViolation, .notApplied: .protocolError
        case .timedOut: deviceWasReached ? .temporaryFailure : .unavailable
        case .transport(let failure): failure.exitStatus(deviceWasReached: deviceWasReached)
        }
    }
}

extension UpdateError {
    /// The error of a management request that failed.
    ///
    /// - Parameter failure: The exchange's failure.
    package init(_ failure: SMPExchangeFailure) {
        self.init(failure, status: failure.exitStatus, deviceWasReached: failure.deviceWasReached)
    }
}

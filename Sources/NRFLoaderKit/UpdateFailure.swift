package import DFUController
import DeviceLink
package import SMP

/// Why an update or a management command failed at the device or its link: the one failure type of every machine,
/// with the exit status derived in one place.
///
/// Each machine keeps its own error, saying who failed in its protocol's words (style §13–14); this type carries it
/// with whether any connection to the device succeeded, which decides between "unavailable" and "try again".
package struct UpdateFailure: Error, Sendable, CustomStringConvertible {
    /// The machine's own error.
    package enum Cause: Sendable, Equatable {
        /// nRF5 DFU, Secure, legacy or buttonless, over any transport.
        case dfu(DFUError)
        /// An SMP image update.
        case smpUpload(SMPUploadError)
        /// An SMP management command.
        case smpCommand(SMPExchangeError)
    }

    /// What failed.
    package var cause: Cause
    /// Whether a connection to the device succeeded at some point: one that then vanishes is a temporary failure,
    /// not an absent device.
    package var deviceWasReached: Bool

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - cause: The machine's error.
    ///   - deviceWasReached: Whether any connection succeeded.
    package init(_ cause: Cause, deviceWasReached: Bool) {
        self.cause = cause
        self.deviceWasReached = deviceWasReached
    }

    /// The machine's message.
    package var description: String {
        switch cause {
        case .dfu(let error): "\(error)"
        case .smpUpload(let error): "\(error)"
        case .smpCommand(let error): "\(error)"
        }
    }

    /// The exit status, a function of typed values only: 76 for a device that refused or broke its protocol (or did
    /// not make a state change it accepted), 75 for what a retry may mend (a time-out, a lost link, an update that
    /// made no progress), 69 for a device or stack never reached, 65 for firmware the device cannot take, 130 for
    /// an interrupt; a link failure by its kind (``DeviceLink/LinkError/exitStatus(deviceWasReached:)``).
    package var exitStatus: ExitStatus {
        switch cause {
        case .dfu(.cancelled), .smpUpload(.cancelled), .smpCommand(.cancelled):
            return .interrupted
        case .dfu(.transport(let failure)):
            return failure.error.exitStatus(deviceWasReached: deviceWasReached)
        case .smpUpload(.transport(let error)), .smpCommand(.transport(let error)):
            return error.exitStatus(deviceWasReached: deviceWasReached)
        case .dfu(.rejected), .dfu(.protocolViolation), .smpUpload(.rejected), .smpUpload(.protocolViolation),
            .smpUpload(.unexpectedState), .smpCommand(.rejected), .smpCommand(.protocolViolation),
            .smpCommand(.notApplied):
            return .protocolError
        case .dfu(.firmwareUnsuitable), .dfu(.invalidFirmware):
            return .dataError
        case .dfu(.noDFUService):
            return .unavailable
        case .dfu(.timedOut), .dfu(.crcMismatchPersisted), .dfu(.reconnectsExhausted), .smpUpload(.timedOut),
            .smpUpload(.reconnectsExhausted), .smpUpload(.unanswered), .smpUpload(.stalled):
            return .temporaryFailure
        case .smpCommand(.timedOut):
            return deviceWasReached ? .temporaryFailure : .unavailable
        }
    }

    /// The device's own refusal, when the device refused: its SMP code.
    package var smpDeviceError: SMPDeviceError? {
        switch cause {
        case .smpUpload(.rejected(_, let error)), .smpCommand(.rejected(_, let error, _)): error
        default: nil
        }
    }
}

extension UpdateError {
    /// The error of a machine that failed.
    ///
    /// - Parameter failure: The failure.
    package init(_ failure: UpdateFailure) {
        self.init(failure, status: failure.exitStatus, deviceWasReached: failure.deviceWasReached)
    }
}

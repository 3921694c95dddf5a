package import DFUController
import DeviceLink

/// A DFU that did not complete, with the exit status that tells a CI job whether to retry.
///
/// The status is a function of typed values only: the controller's error (a transport failure inside it carries
/// its ``LinkError.Kind``) and whether the controller ever connected to the device.
package struct UploadFailure: Error, Sendable, CustomStringConvertible {
    package var error: DFUError
    /// Whether a connection to the device succeeded at some point: one that then vanishes is a temporary failure,
    /// not an absent device.
    package var deviceWasReached: Bool

    package init(error: DFUError, deviceWasReached: Bool) {
        self.error = error
        self.deviceWasReached = deviceWasReached
    }

    package var description: String { "\(error)" }

    package var exitStatus: ExitStatus {
        switch error {
        case .cancelled: .interrupted
        case .rejected, .protocolViolation: .protocolError
        case .firmwareUnsuitable, .invalidFirmware: .dataError
        case .noDFUService: .unavailable
        case .timedOut, .crcMismatchPersisted, .reconnectsExhausted: .temporaryFailure
        case .transport(let failure): failure.error.exitStatus(deviceWasReached: deviceWasReached)
        }
    }
}

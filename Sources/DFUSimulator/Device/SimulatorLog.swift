/// One line of the simulator's inspectable log.
package struct SimulatorLogEntry: Equatable, Sendable, CustomStringConvertible {
    /// What kind of line this is.
    package enum Kind: Equatable, Sendable {
        /// The client broke the protocol; the device answered as the real one would.
        case clientViolation
        /// An injected fault acted.
        case fault
        /// Something the device did that a test may want to see (reset, flash queue, validation result).
        case device
    }

    /// When it happened.
    package let time: Duration
    /// What kind of line this is.
    package let kind: Kind
    /// The message, lowercase, naming the problem.
    package let message: String

    /// `time kind: message`, for example "0.2 seconds client violation: execute with incomplete object".
    package var description: String {
        let label =
            switch kind {
            case .clientViolation: "client violation"
            case .fault: "fault"
            case .device: "device"
            }
        return "\(time) \(label): \(message)"
    }
}

/// One line of the simulator's inspectable log.
public struct SimulatorLogEntry: Equatable, Sendable, CustomStringConvertible {
    /// What kind of line this is.
    public enum Kind: Equatable, Sendable {
        /// The client broke the protocol; the device answered as the real one would.
        case clientViolation
        /// An injected fault acted.
        case fault
        /// Something the device did that a test may want to see (reset, flash queue, validation result).
        case device
    }

    /// When it happened.
    public let time: Duration
    /// What kind of line this is.
    public let kind: Kind
    /// The message, lowercase, naming the problem.
    public let message: String

    /// `time kind: message`, for example "0.2 seconds client violation: execute with incomplete object".
    public var description: String {
        let label =
            switch kind {
            case .clientViolation: "client violation"
            case .fault: "fault"
            case .device: "device"
            }
        return "\(time) \(label): \(message)"
    }
}

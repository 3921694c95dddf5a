/// Why an operation on the link to a device failed, sorted by what the user (or the machine) can do about it:
/// the one failure type of every transport (BlueZ, a serial port, UDP, the simulators) and every protocol.
///
/// The cause keeps the transport's own words (for BlueZ, the D-Bus error name and message; for a serial port, the
/// port and the system's error).
package struct LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of link failure.
    package enum Kind: Sendable, Equatable, CaseIterable {
        /// No stack, adapter, port or permission (exit 69).
        case unavailable
        /// No device matched the request before its deadline (exit 69 when none was ever reached).
        case deviceNotFound
        /// The link dropped during the operation (exit 75: a retry may succeed).
        case linkLost
        /// The operation did not complete in time (exit 75).
        case timedOut
        /// The device answered the operation with an ATT error (exit 76).
        case rejected
        /// Anything else the transport reports.
        case failed

        /// Whether a new connection may succeed where this one failed: the machines reconnect (within their limit)
        /// after these, and give up at once after the others.
        package var isLinkFailure: Bool {
            switch self {
            case .linkLost, .timedOut: true
            case .unavailable, .deviceNotFound, .rejected, .failed: false
            }
        }
    }

    /// What kind of failure it was.
    package var kind: Kind
    /// The transport's own words.
    package var cause: String

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - kind: What kind of failure it was.
    ///   - cause: The transport's own words.
    package init(_ kind: Kind, _ cause: String) {
        self.kind = kind
        self.cause = cause
    }

    /// No stack, adapter, port or permission.
    package static func unavailable(_ cause: String) -> LinkError { LinkError(.unavailable, cause) }
    /// No device matched the request in time.
    package static func deviceNotFound(_ cause: String) -> LinkError { LinkError(.deviceNotFound, cause) }
    /// The link dropped.
    package static func linkLost(_ cause: String) -> LinkError { LinkError(.linkLost, cause) }
    /// The operation did not complete in time.
    package static func timedOut(_ cause: String) -> LinkError { LinkError(.timedOut, cause) }
    /// The device answered with an ATT error.
    package static func rejected(_ cause: String) -> LinkError { LinkError(.rejected, cause) }
    /// Anything else.
    package static func failed(_ cause: String) -> LinkError { LinkError(.failed, cause) }

    /// The cause.
    package var description: String { cause }
}

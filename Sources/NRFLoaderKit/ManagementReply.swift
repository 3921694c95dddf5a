/// What an ``SMPDevice`` command returned, and how many times its request went out.
public struct ManagementReply<Value: Sendable>: Sendable {
    /// The command's result: the image state, the echoed text, the reset's outcome.
    public let value: Value
    /// How many times the request was sent: 1, or more after answers that were lost (no answer in time, or the link
    /// dropped before it); the device got the same request each time.
    public let attempts: Int

    package init(_ value: Value, attempts: Int) {
        self.value = value
        self.attempts = attempts
    }
}

extension ManagementReply: Equatable where Value: Equatable {}

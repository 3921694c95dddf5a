package import SMPSimulator

/// A way a simulated SMP device misbehaves on purpose, after a correct start: what a buggy firmware, a half-broken
/// bootloader or a noisy line really does (`simulate-serial --protocol smp --smp-misbehave KIND`).
///
/// A host must end each in a clean failure bounded by its time-outs and retries, or in a true success.
public enum SMPMisbehaviour: String, Sendable, Equatable, CaseIterable {
    /// After the first upload chunk, every chunk is answered with the same offset and nothing is written.
    case stuckOffset = "stuck-offset"
    /// From the second upload chunk on, the answer names an offset 64 bytes behind the chunk (never 0).
    case offsetBack = "offset-back"
    /// Image state writes and erases are answered as done (with the state they would have made), and nothing
    /// changes.
    case ignoredStateWrite = "ignored-state-write"
    /// Every successful answer repeats its first key with a made-up value in front of the real one.
    case duplicateKeys = "duplicate-keys"
    /// Every answer's body declares a byte string of 4 GiB in a few bytes.
    case hugeLength = "huge-length"
    /// The device answers reset and never comes back: it hears nothing after that.
    case noReturn = "no-return"
    /// Serial console only: the device sends its answers one byte a second.
    case drip
    /// Serial console only: noise on the line before every answer.
    case garbage

    /// What the misbehaviour does, in a few words (`simulate-serial --help` lists them).
    public var summary: String { engine.summary }

    /// The simulator's own value.
    package var engine: SMPSimulator.SMPMisbehaviour {
        guard let engine = SMPSimulator.SMPMisbehaviour(rawValue: rawValue) else {
            preconditionFailure("SMPMisbehaviour '\(rawValue)' has no simulator counterpart")
        }
        return engine
    }
}

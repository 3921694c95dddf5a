/// A way a simulated SMP device misbehaves on purpose, after a correct start: what a buggy firmware, a half-broken
/// bootloader or a noisy line really does (`simulate-serial --protocol smp --smp-misbehave KIND`).
///
/// The host must end each in a clean failure bounded by its time-outs and retries, or in a true success.
package enum SMPMisbehaviour: String, Sendable, Equatable, CaseIterable {
    /// After the first upload chunk, every chunk is answered with the same offset and nothing is written.
    case stuckOffset = "stuck-offset"
    /// From the second upload chunk on, the answer names an offset 64 bytes behind the chunk (never 0).
    case offsetBack = "offset-back"
    /// Image state writes and erases are answered as done (with the state they would have made), and nothing
    /// changes.
    case ignoredStateWrite = "ignored-state-write"
    /// Every successful answer repeats its first key with a made-up value in front of the real one (an image list
    /// then starts with a slot whose hash is all zeros).
    case duplicateKeys = "duplicate-keys"
    /// Every answer's body declares a byte string of 4 GiB in a few bytes.
    case hugeLength = "huge-length"
    /// The device answers reset and never comes back: it hears nothing after that.
    case noReturn = "no-return"
    /// Console only: the device sends its answers one byte a second.
    case drip
    /// Console only: noise on the line before every answer (binary bytes, and a line that starts like an SMP packet
    /// but is not base64).
    case garbage

    /// What the mode does, for `--help`.
    package var summary: String {
        switch self {
        case .stuckOffset: "upload answers repeat the same offset"
        case .offsetBack: "upload answers name an offset behind the chunk"
        case .ignoredStateWrite: "state writes and erases are answered as done but not made"
        case .duplicateKeys: "answers repeat a map key"
        case .hugeLength: "answers declare a 4 GiB byte string"
        case .noReturn: "the device never comes back after a reset"
        case .drip: "answers trickle out at one byte a second"
        case .garbage: "noise on the line between answers"
        }
    }
}

package import DeviceLink

/// Pauses and resumes a running update without losing its place.
///
/// Hand one to ``FirmwareUpdate/init(firmware:target:options:pauseControl:)``, then call ``pause()`` and
/// ``resume()`` from anywhere while the update runs:
///
/// ```swift
/// let control = PauseControl()
/// let update = FirmwareUpdate(firmware: firmware, target: target, pauseControl: control)
/// async let summary = update.run()
/// control.pause()     // nothing more is sent; what is out is answered into the link's queue
/// control.resume()    // the update goes on from where it stood
/// print(try await summary.bytesConfirmed)
/// ```
///
/// A paused update holds its link and sends nothing; its waits for answers are moved on by the length of the pause,
/// so no answer times out because of it. The device keeps what it received. A bootloader has its own inactivity
/// time-out (minutes, in Nordic's SDK), after which it resets; the update then resumes from what the device kept,
/// as after a lost link. Cancelling the task still stops a paused update at once.
public final class PauseControl: Sendable {
    package let gate = PauseGate()

    /// Creates a control, not paused.
    public init() {}

    /// Whether the update is paused.
    public var isPaused: Bool { gate.isPaused }

    /// Pauses the update before its next step; it does nothing more until ``resume()``.
    public func pause() {
        gate.pause()
    }

    /// Resumes a paused update from where it stood.
    public func resume() {
        gate.resume()
    }
}

import DeviceLink

/// One update: firmware, a device, and options; run it with ``run(onEvent:)``, or iterate ``events``.
///
/// ```swift
/// let update = FirmwareUpdate(firmware: try Firmware("app.zip"), target: target)
/// let summary = try await update.run { event in print(event.json) }
/// print("confirmed \(summary.bytesConfirmed) bytes")
/// ```
///
/// Cancelling the task that runs the update (or that iterates ``events``) stops it: the device is told to abort
/// where the protocol can (Secure DFU's abort, SMP's nothing-pending state), the link is closed, and the call throws
/// an ``UpdateError`` whose ``UpdateError/exitStatus`` is ``ExitStatus/interrupted``. A later update resumes
/// where the device stands. A ``PauseControl`` pauses and resumes a running update without stopping it.
public struct FirmwareUpdate: Sendable {
    /// What is sent.
    public let firmware: Firmware
    /// Where it goes.
    public let target: UpdateTarget
    /// How.
    public let options: UpdateOptions
    /// What pauses and resumes the update while it runs, if anything.
    public let pauseControl: PauseControl?

    /// An update of `target` with `firmware`.
    ///
    /// - Parameters:
    ///   - firmware: What is sent.
    ///   - target: Where it goes.
    ///   - options: How.
    ///   - pauseControl: What pauses and resumes the update while it runs.
    public init(
        firmware: Firmware, target: UpdateTarget, options: UpdateOptions = UpdateOptions(),
        pauseControl: PauseControl? = nil
    ) {
        self.firmware = firmware
        self.target = target
        self.options = options
        self.pauseControl = pauseControl
    }

    /// Runs the update in the calling task, reporting each event to `onEvent` as it happens.
    ///
    /// - Parameter onEvent: Called with every event, in order, from the calling task; the last is
    ///   ``UpdateEvent/result(_:)`` when the update succeeds.
    /// - Returns: What the device confirmed.
    /// - Throws: ``UpdateError``: the input, the options, the transport or the device failed, or the task was
    ///   cancelled.
    public func run(onEvent: (UpdateEvent) -> Void = { _ in }) async throws(UpdateError) -> UpdateSummary {
        try options.validate()
        let outcome = await PauseGate.$current.withValue(pauseControl?.gate) {
            () async -> Result<UpdateSummary, UpdateError> in
            do throws(UpdateError) {
                return .success(try await target.run(firmware, options, onEvent))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The update's events as an asynchronous sequence: iterating it runs the update, in a task of its own, and
    /// ending the iteration early (or cancelling the iterating task) cancels it.
    ///
    /// The sequence ends after ``UpdateEvent/result(_:)``, or throws the ``UpdateError`` the update failed with.
    public var events: AsyncThrowingStream<UpdateEvent, any Error> {
        let update = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await update.run { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

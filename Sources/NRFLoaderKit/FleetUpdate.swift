import DFUController
import FleetUpload

/// Several updates at once: a production line's station, a test rig, a gateway updating the devices it serves.
///
/// Each update runs in its own task, at most ``maximumConcurrentUpdates`` at a time, in the given order. One device
/// failing does not stop the others; each ends with its own result. Cancelling the task that runs the fleet cancels
/// every update in flight (each device is told to abort) and starts no more; those never started end with an
/// ``UpdateError`` whose status is ``ExitStatus/interrupted``.
///
/// Devices on one Bluetooth adapter share its radio: for BlueZ targets, 2 to 4 at once per adapter is the useful
/// range; give targets on other adapters (``UpdateTarget``'s Bluetooth options) to go wider.
public struct FleetUpdate: Sendable {
    /// One device's event.
    public struct Event: Sendable {
        /// The update's index in ``FleetUpdate/updates``.
        public let device: Int
        /// What happened.
        public let event: UpdateEvent
    }

    /// The updates, one per device.
    public let updates: [FirmwareUpdate]
    /// The most updates running at once (at least 1).
    public let maximumConcurrentUpdates: Int

    /// A fleet of `updates`, `maximumConcurrentUpdates` at once.
    public init(_ updates: [FirmwareUpdate], maximumConcurrentUpdates: Int = 2) {
        self.updates = updates
        self.maximumConcurrentUpdates = max(1, maximumConcurrentUpdates)
    }

    /// Runs every update, reporting each device's events as they happen.
    ///
    /// - Parameter onEvent: Called with each device's events, from the device's task (so from several tasks at
    ///   once).
    /// - Returns: One result per update, in the order of ``updates``.
    public func run(onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async -> [Result<
        UpdateSummary, UpdateError
    >] {
        let placeholder = BluetoothAddress((0, 0, 0, 0, 0, 0))
        let devices = updates.indices.map { _ in FleetDevice(address: placeholder, lane: "fleet") }
        let updates = updates
        let cancelled = UpdateError(UploadFailure(error: .cancelled, deviceWasReached: false))
        return await FleetScheduler.run(
            devices, parallel: maximumConcurrentUpdates, notStarted: .failure(cancelled),
            session: { index, _ in
                do throws(UpdateError) {
                    return .success(try await updates[index].run { onEvent(Event(device: index, event: $0)) })
                } catch {
                    return .failure(error)
                }
            }, finished: { _, _ in })
    }
}

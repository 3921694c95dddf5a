package import DFUController
package import DFUTargetAdapter

/// One device of a fleet update: where it is, what it is called, and which lane (adapter) it is reached through.
package struct FleetDevice: Sendable, Hashable {
    /// The device's address, as the controller looks for it (the bootloader may come back at address + 1).
    package var address: BluetoothAddress
    /// The name it advertised, when known (text from outside: escape it before it reaches a terminal).
    package var name: String?
    /// The lane the device is reached through, typically its adapter (`hci0`): the `parallel` limit of
    /// ``FleetUpload`` holds per lane.
    package var lane: String

    /// Creates a device.
    ///
    /// - Parameters:
    ///   - address: The device's address.
    ///   - name: The advertised name, if known.
    ///   - lane: The adapter (or other shared resource) the device is reached through.
    package init(address: BluetoothAddress, name: String? = nil, lane: String) {
        self.address = address
        self.name = name
        self.lane = lane
    }
}

/// How one device's update ended.
package enum FleetOutcome: Sendable {
    /// Every part was confirmed by the device.
    case completed(DFUSummary)
    /// The controller gave up (a transport failure is inside the error, typed); `deviceWasReached` says whether
    /// the device was connected at some point (a device that vanishes after that is a temporary failure, one never
    /// seen is absent).
    case failed(DFUError, deviceWasReached: Bool)
    /// The transport to the device could not be opened (the factory threw); the session never started.
    case notOpened(any Error)
    /// The run was cancelled before the device's turn came: nothing was sent to it.
    case notStarted

    /// Whether the device confirmed the whole update.
    package var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// The outcome of one adapter session: the one place that reads ``DFUTargetAdapter/Outcome``.
    init<Transport>(_ outcome: DFUTargetAdapter<Transport>.Outcome) {
        switch outcome {
        case .completed(let summary):
            self = .completed(summary)
        case .failed(let error, let deviceWasReached):
            self = .failed(error, deviceWasReached: deviceWasReached)
        }
    }
}

/// What happens to one device during a fleet update, in order: ``started``, then session events, then exactly one
/// ``finished(_:)`` (a device the run never reached gets only ``finished(_:)`` with ``FleetOutcome/notStarted``).
package enum FleetEvent: Sendable {
    /// The device's turn came: its transport is being opened.
    case started
    /// Its session reported a phase, progress or a log line.
    case session(DFUSessionEvent)
    /// Its update ended.
    case finished(FleetOutcome)
}

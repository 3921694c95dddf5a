/// Several updates at once: a production line's station, a test rig, a gateway updating the devices it serves.
///
/// Each update runs in its own task, at most ``maximumConcurrentUpdates`` at a time per lane (a target's
/// ``UpdateTarget/lane``: its Bluetooth adapter, its port), in the given order within a lane. One device failing
/// does not stop the others; each ends with its own ``Outcome``. Cancelling the task that runs the fleet cancels every
/// update in flight (each device is told to abort) and starts no more; those never started end as
/// ``Outcome/notStarted``.
///
/// Devices on one Bluetooth adapter share its radio: 2 to 4 at once per adapter is the useful range; spread the
/// devices over adapters to go wider.
public struct FleetUpdate: Sendable {
    /// Something that happened to one device.
    public struct Event: Sendable {
        /// What happened.
        public enum Kind: Sendable {
            /// The device's update started (its turn came).
            case started
            /// An event of the device's update.
            case update(UpdateEvent)
            /// The device's update ended; every device gets exactly one, the ones never started too.
            case finished(Outcome)
        }

        /// The update's index in ``FleetUpdate/updates``.
        public let device: Int
        /// What happened.
        public let kind: Kind
    }

    /// How one device's update ended.
    public enum Outcome: Sendable {
        /// The device confirmed the update.
        case completed(UpdateSummary)
        /// The update failed.
        case failed(UpdateError)
        /// The fleet was cancelled before the device's turn came.
        case notStarted

        /// The exit status of the device: ``ExitStatus/success``, the error's, or ``ExitStatus/interrupted``.
        public var exitStatus: ExitStatus {
            switch self {
            case .completed: .success
            case .failed(let error): error.exitStatus
            case .notStarted: .interrupted
            }
        }
    }

    /// The updates, one per device.
    public let updates: [FirmwareUpdate]
    /// The most updates running at once on one lane (at least 1).
    public let maximumConcurrentUpdates: Int

    /// A fleet of `updates`, `maximumConcurrentUpdates` at once per lane.
    public init(_ updates: [FirmwareUpdate], maximumConcurrentUpdates: Int = 2) {
        self.updates = updates
        self.maximumConcurrentUpdates = max(1, maximumConcurrentUpdates)
    }

    /// Runs every update, reporting each device's events as they happen.
    ///
    /// - Parameter onEvent: Called with each device's events, from the device's task (so from several tasks at
    ///   once); ``Event/Kind/finished(_:)`` comes from the task that runs the fleet.
    /// - Returns: One outcome per update, in the order of ``updates``.
    public func run(onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async -> [Outcome] {
        let updates = updates
        return await FleetScheduler.run(
            lanes: updates.map(\.target.lane), parallel: maximumConcurrentUpdates, notStarted: Outcome.notStarted,
            session: { index in
                onEvent(Event(device: index, kind: .started))
                do throws(UpdateError) {
                    let summary = try await updates[index].run { onEvent(Event(device: index, kind: .update($0))) }
                    return .completed(summary)
                } catch {
                    return .failed(error)
                }
            },
            finished: { index, outcome in onEvent(Event(device: index, kind: .finished(outcome))) })
    }
}

extension ExitStatus {
    /// The statuses of failed devices, most serious first.
    ///
    /// An interrupted run says so above all (130); then a bug (70); then what no retry fixes: bad input or firmware
    /// the devices refuse (65, 66, 64), a device that broke or rejected the protocol (76); then absent devices or
    /// BlueZ (69), output trouble (73, 74); last what a retry may fix (75).
    static let severity: [ExitStatus] = [
        .interrupted, .software, .dataError, .noInput, .usage, .protocolError, .unavailable, .cannotCreate, .ioError,
        .temporaryFailure,
    ]

    /// The status of several devices' updates together: ``success`` when all succeeded, else the most serious of
    /// their statuses (``interrupted`` first, ``temporaryFailure`` last: a retry helps only when nothing worse
    /// happened), as `nrfloader upload` exits after updating several devices.
    ///
    /// - Parameter statuses: Each device's status.
    /// - Returns: The status of the whole.
    public static func mostSerious(of statuses: [ExitStatus]) -> ExitStatus {
        let failed = Set(statuses).subtracting([.success])
        return severity.first(where: failed.contains) ?? failed.first ?? .success
    }
}

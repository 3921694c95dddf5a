/// Runs one session per device, at most `parallel` at once per lane, in the given order within a lane: the
/// scheduling of ``FleetUpdate``.
///
/// A cancelled run starts no more devices; those still waiting end as `notStarted`.
package enum FleetScheduler {
    /// Runs `session` for every device and returns the outcomes in the order of `devices`.
    ///
    /// - Parameters:
    ///   - lanes: Each device's lane (its adapter, its port).
    ///   - parallel: The most sessions running at once on one lane (at least 1).
    ///   - notStarted: The outcome of a device the run never started (cancelled).
    ///   - session: One device's whole session, run in its own task.
    ///   - finished: Receives each device's outcome as it ends, the ones never started too; called from one task.
    /// - Returns: One outcome per device, in the order of `lanes`.
    package static func run<Outcome: Sendable>(
        lanes: [String], parallel: Int, notStarted: Outcome,
        session: @escaping @Sendable (_ index: Int) async -> Outcome,
        finished: (_ index: Int, _ outcome: Outcome) -> Void
    ) async -> [Outcome] {
        let parallel = max(1, parallel)
        var outcomes = [Outcome](repeating: notStarted, count: lanes.count)
        var waiting = Array(lanes.indices)
        var running: [String: Int] = [:]
        await withTaskGroup(of: (Int, Outcome).self) { group in
            while true {
                if !Task.isCancelled {
                    // Start every waiting device whose lane has room, keeping the given order within a lane.
                    var position = 0
                    while position < waiting.count {
                        let index = waiting[position]
                        let lane = lanes[index]
                        guard running[lane, default: 0] < parallel else {
                            position += 1
                            continue
                        }
                        waiting.remove(at: position)
                        running[lane, default: 0] += 1
                        group.addTask { (index, await session(index)) }
                    }
                }
                guard let (index, outcome) = await group.next() else { break }
                running[lanes[index], default: 1] -= 1
                outcomes[index] = outcome
                finished(index, outcome)
            }
        }
        // Only a cancelled run leaves devices waiting.
        for index in waiting { finished(index, notStarted) }
        return outcomes
    }
}

import Synchronization

/// A one-way flag that pauses can wait on: raised once by `stop()`, it ends every pause at once, so that a stop during
/// a simulated reset or MCUboot swap (seconds at nRF52 flash timing) is not held up by it.
final class StopSignal: Sendable {
    private struct State {
        var isRaised = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Whether the flag is raised.
    var isRaised: Bool { state.withLock { $0.isRaised } }

    /// Raises the flag and wakes every pause.
    func raise() {
        let waiters = state.withLock { state in
            state.isRaised = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for `duration`, or less if the flag is (or gets) raised or the task is cancelled.
    func pause(for duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.waitUntilRaised() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitUntilRaised() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isDone = state.withLock { state -> Bool in
                    if state.isRaised || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if isDone { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

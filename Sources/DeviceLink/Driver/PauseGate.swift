import Synchronization

/// Holds a running ``MachineDriver`` between two steps while a caller has paused it.
///
/// The driver looks at the gate before it performs anything, so a paused update sends nothing more: the requests
/// already out are answered into the link's queue and read after ``resume()``, and every timer the machine runs is
/// moved on by the time the pause lasted, so that no answer times out because of it. Where the device stands does
/// not change; whether the device itself waits that long (a bootloader's own inactivity time-out) is the device's.
///
/// The gate reaches the driver as a task-local (``current``), set by whoever runs the update, so that every
/// transport and protocol honours it without carrying it.
package final class PauseGate: Sendable {
    private struct State {
        var isPaused = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The gate of the update the current task runs, if its caller can pause it.
    @TaskLocal package static var current: PauseGate?

    /// Creates an open gate.
    package init() {}

    /// Whether the gate holds the driver.
    package var isPaused: Bool { state.withLock { $0.isPaused } }

    /// Closes the gate: the driver stops before its next step.
    package func pause() {
        state.withLock { $0.isPaused = true }
    }

    /// Opens the gate: a held driver goes on.
    package func resume() {
        let waiters = state.withLock { state in
            state.isPaused = false
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits while the gate is closed, or until the task is cancelled.
    package func waitWhilePaused() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard state.isPaused, !Task.isCancelled else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

import Synchronization

/// Events handed from a socket's reader thread to the task that waits for them: a queue, and the waits parked on it.
///
/// The reader thread only appends and resumes; the waiting task never blocks a thread of the cooperative pool.
final class UDPMailbox<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Appends `event` and wakes every wait.
    func post(_ event: Event) {
        let waiters = state.withLock { state in
            state.events.append(event)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Takes the oldest event, if any.
    func take() -> Event? {
        state.withLock { $0.events.isEmpty ? nil : $0.events.removeFirst() }
    }

    /// Drops every queued event.
    func clear() {
        state.withLock { $0.events.removeAll() }
    }

    /// Waits until an event is queued, the task is cancelled, or `deadline` passes.
    func wait<C: Clock>(until deadline: C.Instant, clock: C) async where C.Duration == Duration {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.arrival() }
            group.addTask { try? await Task.sleep(until: deadline, clock: clock) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once an event is queued or the task is cancelled.
    private func arrival() async {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancellation is flagged before its handler runs: a wait registered after the handler finds it.
                let now = state.withLock { state -> Bool in
                    if !state.events.isEmpty || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

import Synchronization

/// A first-in first-out queue one consumer awaits with a deadline; producers push from any thread.
final class EventQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var head = 0
        var waiter: CheckedContinuation<Element?, Never>?

        mutating func popFirst() -> Element? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    private let state = Mutex(State())

    /// Appends an element, handing it straight to a waiting consumer.
    func push(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// Puts an element back at the front (one the consumer took but did not use).
    private func pushFront(_ element: Element) {
        state.withLock { state in
            if state.head > 0 {
                state.head -= 1
                state.items[state.head] = element
            } else {
                state.items.insert(element, at: 0)
            }
        }
    }

    /// Drops everything queued.
    func removeAll() {
        state.withLock { state in
            state.items.removeAll()
            state.head = 0
        }
    }

    /// The next element, or `nil` when `deadline` passes or the task is cancelled first.
    func next(until deadline: ContinuousClock.Instant) async -> Element? {
        if let element = state.withLock({ $0.popFirst() }) { return element }
        return await withTaskGroup(of: Element?.self) { group in
            group.addTask { await self.waitForElement() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            var result = await group.next() ?? nil
            group.cancelAll()
            for await late in group {
                guard let late else { continue }
                if result == nil { result = late } else { pushFront(late) }
            }
            return result
        }
    }

    private func waitForElement() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let immediate: Element?? = state.withLock { state in
                    if let element = state.popFirst() { return .some(element) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

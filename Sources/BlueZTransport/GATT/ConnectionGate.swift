import Synchronization

/// One link set-up or teardown at a time per adapter, for every transport of this process.
///
/// Debian 12's kernel (6.1) can corrupt its connection list when two LE links of one adapter are set up at once, or
/// when one is torn down while another is being set up: on the real-bluetoothd tier the second link of a fleet
/// dropped during its MTU exchange (`device_svc_resolved() … err -5`), and tearing it down hit `list_del corruption`
/// (`kernel BUG at lib/list_debug.c:56`) in bluetoothd's context, which took bluetoothd down. A fleet therefore
/// connects its devices one after the other (from `Device1.Connect` to the DFU characteristics and sockets) and
/// disconnects them between set-ups; transfers still run side by side.
final class ConnectionGate: Sendable {
    private struct State {
        var isHeld = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private static let gates = Mutex<[String: ConnectionGate]>([:])

    /// The gate of an adapter (by object path), shared by every transport of the process.
    static func gate(for adapterPath: String) -> ConnectionGate {
        gates.withLock { gates in
            if let gate = gates[adapterPath] { return gate }
            let gate = ConnectionGate()
            gates[adapterPath] = gate
            return gate
        }
    }

    /// Waits for the gate, first come first served.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.isHeld else {
                    state.isHeld = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Passes the gate to the next waiter, or opens it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding the gate.
    func holding<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await enter()
        defer { leave() }
        return try await body()
    }
}

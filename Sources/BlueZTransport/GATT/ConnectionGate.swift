import Synchronization

/// One link creation or teardown at a time per adapter, for every transport of this process.
///
/// The gate covers the two steps that add a link to the adapter's connection list in the kernel or take one off it:
/// our `Device1.Connect` (until BlueZ answers, and the `Disconnect` of an attempt that timed out) and our
/// `Device1.Disconnect`. Service resolution, reading the characteristics, `AcquireWrite` and `StartNotify` run on a
/// link that exists already, over its own ATT bearer, and bluetoothd keeps them per device: a fleet's devices do those
/// side by side, as they transfer side by side.
///
/// The gate used to span a whole set-up, from `Device1.Connect` to the DFU sockets, after a fleet's second link on
/// the real-bluetoothd tier dropped during its MTU exchange (`device_svc_resolved() … err -5`) and its teardown hit
/// `list_del corruption` (`kernel BUG at lib/list_debug.c:56`) in bluetoothd's context on Debian 12's kernel (6.1).
/// That was traced later to btvirt 5.66, not to overlapping set-ups (`Tests/VM/README.md`, "A fleet on one central"):
/// btvirt numbers a central's second link differently at its two ends, so any second concurrent link carries data
/// one way only, and closing the ATT socket of such a half-dead link is what hit the BUG. The wide gate never kept two
/// links apart (the first device's link stays up, transferring, while the next is set up); it only made each device
/// wait for the others' service resolution, which on real bluetoothd can take seconds (testrig.md). What is left is
/// the precaution that costs little: two links are never created, or one created while another is torn down, at the
/// same moment.
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

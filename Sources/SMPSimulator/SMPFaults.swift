import DFUSimulator

/// The `--sim-fault` plan applied to SMP frames (see ``SimulatedSMPTransport``).
struct SMPFaults: Sendable {
    enum LinkEffect {
        case none
        case disconnect
        case reboot
    }

    private let faults: [Fault]
    private var random: UInt64
    private var requests = 0
    private var answers = 0
    private var receivedBytes = 0
    private var firedOnce: Set<Int> = []
    private var isStalled = false

    init(plan: FaultPlan) {
        faults = plan.faults
        random = plan.seed
    }

    var mtuCap: Int? {
        faults.compactMap { if case .capMTU(let mtu) = $0 { mtu } else { nil } }.min()
    }

    /// Whether the next request frame is lost on the way.
    mutating func dropsRequest() -> Bool {
        requests += 1
        return faults.contains { fault in
            if case .dropPacket(let trigger) = fault { return fires(trigger, count: requests) }
            return false
        }
    }

    /// The device received a frame of `bytes`; whether a byte-counted fault fires now.
    mutating func received(bytes: Int) -> LinkEffect {
        receivedBytes += bytes
        for (index, fault) in faults.enumerated() where !firedOnce.contains(index) {
            switch fault {
            case .disconnect(let threshold) where receivedBytes >= threshold:
                firedOnce.insert(index)
                return .disconnect
            case .reboot(let threshold) where receivedBytes >= threshold:
                firedOnce.insert(index)
                return .reboot
            default:
                continue
            }
        }
        return .none
    }

    /// Whether the device stops answering (`stall@N`: from the Nth request it handles, until a disconnection).
    mutating func stallsAnswer() -> Bool {
        if isStalled { return true }
        for (index, fault) in faults.enumerated() where !firedOnce.contains(index) {
            if case .stall(let after) = fault, requests >= after {
                firedOnce.insert(index)
                isStalled = true
                return true
            }
        }
        return false
    }

    /// How many copies of the next answer reach the central: 0 (dropped), 1, or 2 (duplicated).
    mutating func answerCopies() -> Int {
        answers += 1
        var copies = 1
        for fault in faults {
            switch fault {
            case .dropNotification(let trigger) where fires(trigger, count: answers): copies = 0
            case .duplicateNotification(let trigger) where fires(trigger, count: answers) && copies > 0: copies = 2
            default: continue
            }
        }
        return copies
    }

    mutating func linkDropped() {
        isStalled = false
    }

    private mutating func fires(_ trigger: FaultTrigger, count: Int) -> Bool {
        switch trigger {
        case .occurrence(let n): return count == n
        case .fromOccurrence(let n): return count >= n
        case .random(let probability):
            // SplitMix64, as the DFU simulator draws its random faults.
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53) < probability
        }
    }
}

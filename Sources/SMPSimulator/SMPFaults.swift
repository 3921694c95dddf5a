package import DeviceLink

/// The `--sim-fault` plan applied to SMP frames, by `--target sim:smp` and `simulate --kind smp` alike.
///
/// `drop-packet@N` loses the Nth request frame, `drop-notification@N` /
/// `duplicate-notification@N` the Nth answer, `disconnect@BYTES` / `reboot@BYTES` fire once the device has received
/// that many request bytes (the frame that reaches the threshold is not handled), `stall@N` silences the device from
/// its Nth request until the link drops, `mtu@N` caps the MTU. `respond@ID:RC` is the device's own
/// (``SimulatedSMPDevice/forceAnswer(toCommand:rc:)``).
package struct SMPFaults: Sendable {
    /// What a received frame does to the link.
    package enum LinkEffect {
        /// Nothing: the device handles the frame.
        case none
        /// The device drops the link without handling the frame.
        case disconnect
        /// The device resets without handling the frame.
        case reboot
    }

    private let faults: [Fault]
    private var random: SplitMix64
    private var requests = 0
    private var answers = 0
    private var receivedBytes = 0
    private var firedOnce: Set<Int> = []
    private var isStalled = false

    /// The plan's faults, counted from the start.
    package init(plan: FaultPlan) {
        faults = plan.faults
        random = SplitMix64(seed: plan.seed)
    }

    /// The lowest `mtu@N`, if any.
    package var mtuCap: Int? {
        faults.compactMap { if case .capMTU(let mtu) = $0 { mtu } else { nil } }.min()
    }

    /// Whether the next request frame is lost on the way.
    package mutating func dropsRequest() -> Bool {
        requests += 1
        return faults.contains { fault in
            if case .dropPacket(let trigger) = fault { return fires(trigger, count: requests) }
            return false
        }
    }

    /// The device received a frame of `bytes`; whether a byte-counted fault fires now.
    package mutating func received(bytes: Int) -> LinkEffect {
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
    package mutating func stallsAnswer() -> Bool {
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
    package mutating func answerCopies() -> Int {
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

    /// The link dropped: a stalled device speaks again on the next one.
    package mutating func linkDropped() {
        isStalled = false
    }

    private mutating func fires(_ trigger: FaultTrigger, count: Int) -> Bool {
        switch trigger {
        case .occurrence(let n): return count == n
        case .fromOccurrence(let n): return count >= n
        case .random(let probability):
            // As the DFU simulator draws its random faults.
            return random.nextUnit() < probability
        }
    }
}

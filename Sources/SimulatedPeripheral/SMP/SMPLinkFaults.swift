import DFUSimulator

/// The `--sim-fault` plan of `simulate --kind smp`, counted on SMP frames.
///
/// As `--target sim:smp` counts them: `drop-packet@N` loses the Nth request frame, `drop-notification@N` / `duplicate-notification@N` the Nth answer,
/// `disconnect@BYTES` / `reboot@BYTES` fire once the device has received that many request bytes (the frame that
/// reaches the threshold is not handled), `stall@N` silences the device from its Nth request until the link drops,
/// `mtu@N` caps the MTU. `respond@ID:RC` is the device's own (``SimulatedSMPDevice/forceAnswer(toCommand:rc:)``).
struct SMPLinkFaults: Sendable {
    /// What a received frame does to the link.
    enum LinkEffect: Equatable {
        /// Nothing: the device handles the frame.
        case none
        /// The device drops the link without handling it.
        case disconnect
        /// The device resets without handling it.
        case reboot
    }

    private let faults: [Fault]
    private var random: UInt64
    private var requests = 0
    private var answers = 0
    private var receivedBytes = 0
    private var fired: Set<Int> = []
    private var isStalled = false

    init(plan: FaultPlan) {
        faults = plan.faults
        random = plan.seed
    }

    /// The lowest `mtu@N`, if any.
    var mtuCap: Int? {
        faults.compactMap { fault in if case .capMTU(let mtu) = fault { mtu } else { nil } }.min()
    }

    /// Counts a request frame of `bytes`; what it does to the link, and whether it is lost before the device sees
    /// it.
    mutating func received(bytes: Int) -> (effect: LinkEffect, isDropped: Bool) {
        requests += 1
        let isDropped = faults.contains { fault in
            if case .dropPacket(let trigger) = fault { return fires(trigger, count: requests) }
            return false
        }
        if isDropped { return (.none, true) }
        receivedBytes += bytes
        for (index, fault) in faults.enumerated() where !fired.contains(index) {
            switch fault {
            case .disconnect(let threshold) where receivedBytes >= threshold:
                fired.insert(index)
                return (.disconnect, false)
            case .reboot(let threshold) where receivedBytes >= threshold:
                fired.insert(index)
                return (.reboot, false)
            case .stall(let after) where requests >= after:
                fired.insert(index)
                isStalled = true
            default:
                continue
            }
        }
        return (.none, false)
    }

    /// Whether answers are withheld (a `stall@N` fired and the link has not dropped since).
    var isSilent: Bool { isStalled }

    /// How many copies of the next answer go out: 0, 1 or 2.
    mutating func answerCopies() -> Int {
        answers += 1
        var copies = 1
        for fault in faults {
            switch fault {
            case .dropNotification(let trigger) where fires(trigger, count: answers): copies = 0
            case .duplicateNotification(let trigger) where copies > 0 && fires(trigger, count: answers): copies = 2
            default: continue
            }
        }
        return copies
    }

    /// The link dropped: a stalled device speaks again on the next one.
    mutating func linkDropped() {
        isStalled = false
    }

    private mutating func fires(_ trigger: FaultTrigger, count: Int) -> Bool {
        switch trigger {
        case .occurrence(let n):
            return count == n
        case .fromOccurrence(let n):
            return count >= n
        case .random(let probability):
            // SplitMix64 over the plan's seed: the same seed gives the same faults.
            random &+= 0x9E37_79B9_7F4A_7C15
            var mixed = random
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            return Double(mixed >> 11) / Double(UInt64(1) << 53) < probability
        }
    }
}

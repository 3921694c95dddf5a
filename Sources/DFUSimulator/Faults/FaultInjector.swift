/// The running state of a `FaultPlan`: counters per fault and the seeded generator.
import DeviceLink

struct FaultInjector: Sendable {
    enum PacketFate: Equatable {
        case deliver([UInt8])
        case deliverTwice([UInt8])
        case drop
    }

    private let faults: [Fault]
    private var generator: SplitMix64
    private var counts: [Int]
    private var firedOnce: Set<Int> = []
    private(set) var packetBytesReceived = 0

    init(plan: FaultPlan) {
        faults = plan.faults
        generator = SplitMix64(seed: plan.seed)
        counts = Array(repeating: 0, count: plan.faults.count)
    }

    var rejectsMisalignedWrites: Bool { faults.contains(.rejectMisalignedWrites) }

    var mtuCap: Int? {
        faults.compactMap { fault -> Int? in
            if case .capMTU(let cap) = fault { return cap }
            return nil
        }.min()
    }

    var stallThreshold: Int? {
        faults.compactMap { fault -> Int? in
            if case .stall(let count) = fault { return count }
            return nil
        }.min()
    }

    private mutating func fires(_ trigger: FaultTrigger, index: Int) -> Bool {
        counts[index] += 1
        switch trigger {
        case .occurrence(let n): return counts[index] == n
        case .fromOccurrence(let n): return counts[index] >= n
        case .random(let probability): return generator.nextUnit() < probability
        }
    }

    private mutating func flipBit(in bytes: [UInt8], from start: Int) -> [UInt8] {
        guard bytes.count > start else { return bytes }
        var corrupted = bytes
        let position = start + Int(generator.next() % UInt64(bytes.count - start))
        corrupted[position] ^= UInt8(1) << UInt8(generator.next() % 8)
        return corrupted
    }

    mutating func packetFate(_ bytes: [UInt8]) -> (fate: PacketFate, notes: [String]) {
        var drop = false
        var duplicate = false
        var payload = bytes
        var notes: [String] = []
        for (index, fault) in faults.enumerated() {
            switch fault {
            case .dropPacket(let trigger):
                if fires(trigger, index: index) {
                    drop = true
                    notes.append("packet of \(bytes.count) bytes dropped")
                }
            case .duplicatePacket(let trigger):
                if fires(trigger, index: index) {
                    duplicate = true
                    notes.append("packet of \(bytes.count) bytes duplicated")
                }
            case .corruptPacket(let trigger):
                if fires(trigger, index: index) {
                    payload = flipBit(in: payload, from: 0)
                    notes.append("packet corrupted: \(hexDump(bytes)) -> \(hexDump(payload))")
                }
            case .dropNotification, .duplicateNotification, .corruptNotification, .disconnect, .reboot, .respond,
                .stall, .rejectMisalignedWrites, .capMTU:
                continue  // Not a packet fault.
            }
        }
        if drop { return (.drop, notes) }
        return (duplicate ? .deliverTwice(payload) : .deliver(payload), notes)
    }

    /// What becomes of a notification: zero, one or two copies, possibly corrupted.
    mutating func notificationFate(_ bytes: [UInt8]) -> (copies: [[UInt8]], notes: [String]) {
        var drop = false
        var duplicate = false
        var payload = bytes
        var notes: [String] = []
        for (index, fault) in faults.enumerated() {
            switch fault {
            case .dropNotification(let trigger):
                if fires(trigger, index: index) {
                    drop = true
                    notes.append("notification dropped: \(hexDump(bytes))")
                }
            case .duplicateNotification(let trigger):
                if fires(trigger, index: index) {
                    duplicate = true
                    notes.append("notification duplicated: \(hexDump(bytes))")
                }
            case .corruptNotification(let trigger):
                if fires(trigger, index: index) {
                    payload = flipBit(in: payload, from: payload.count > 3 ? 3 : 0)
                    notes.append("notification corrupted: \(hexDump(bytes)) -> \(hexDump(payload))")
                }
            case .dropPacket, .duplicatePacket, .corruptPacket, .disconnect, .reboot, .respond, .stall,
                .rejectMisalignedWrites, .capMTU:
                continue  // Not a notification fault.
            }
        }
        if drop { return ([], notes) }
        return (duplicate ? [payload, payload] : [payload], notes)
    }

    /// The forced response for a control-point request, if a `respond` fault fires for its opcode.
    mutating func forcedResponse(opcode: UInt8) -> (result: UInt8, extendedError: UInt8?)? {
        for (index, fault) in faults.enumerated() {
            guard case .respond(let faultOpcode, let result, let extendedError, let trigger) = fault,
                faultOpcode == opcode
            else { continue }
            if fires(trigger, index: index) { return (result, extendedError) }
        }
        return nil
    }

    enum ByteThresholdEvent: Equatable {
        case disconnect
        case reboot
    }

    /// Counts packet bytes the device received and reports a one-shot disconnect or reboot that became due.
    mutating func recordPacketBytes(_ count: Int) -> ByteThresholdEvent? {
        packetBytesReceived += count
        for (index, fault) in faults.enumerated() where !firedOnce.contains(index) {
            switch fault {
            case .disconnect(let threshold) where packetBytesReceived >= threshold:
                firedOnce.insert(index)
                return .disconnect
            case .reboot(let threshold) where packetBytesReceived >= threshold:
                firedOnce.insert(index)
                return .reboot
            default:
                continue  // Other faults are not byte thresholds.
            }
        }
        return nil
    }
}

/// Faults to inject into one simulated device, replayed identically for the same seed.
///
/// Faults act between the client and the simulated firmware, like a lossy radio or a misbehaving device
/// (style §33, after smoltcp's `FaultInjector`). Random choices (whether a `random` trigger fires, which byte
/// a corruption hits, which bit it flips) come from a SplitMix64 generator seeded with ``seed``, drawn in
/// event order, so two runs with the same seed and the same client inputs inject the same faults.
package struct FaultPlan: Sendable {
    /// The generator seed.
    package var seed: UInt64
    /// The faults, evaluated in order for every event they apply to.
    package var faults: [Fault]

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - seed: The generator seed.
    ///   - faults: The faults to inject.
    package init(seed: UInt64 = 0, faults: [Fault] = []) {
        self.seed = seed
        self.faults = faults
    }
}

/// When a counted fault fires.
package enum FaultTrigger: Equatable, Sendable {
    /// On the n-th matching event only (1-based).
    case occurrence(Int)
    /// On every matching event from the n-th on (1-based).
    case fromOccurrence(Int)
    /// On each matching event with this probability (0…1), drawn from the seeded generator.
    case random(probability: Double)
}

/// One kind of fault.
package enum Fault: Equatable, Sendable {
    /// A packet-characteristic write is lost before the device sees it.
    case dropPacket(FaultTrigger)
    /// A packet-characteristic write reaches the device twice.
    case duplicatePacket(FaultTrigger)
    /// One bit of a packet-characteristic write is flipped (byte and bit drawn from the generator).
    case corruptPacket(FaultTrigger)
    /// A notification or indication is lost.
    case dropNotification(FaultTrigger)
    /// A notification or indication is delivered twice.
    case duplicateNotification(FaultTrigger)
    /// One bit of a notification is flipped, past the 3-byte response header when there is a payload
    /// (so a CRC or offset is what breaks).
    case corruptNotification(FaultTrigger)
    /// The link drops once the device has received this many packet-characteristic bytes; the device keeps
    /// its state. Fires once.
    case disconnect(afterPacketBytes: Int)
    /// The device resets once it has received this many packet-characteristic bytes (mid-object).
    /// Fires once.
    case reboot(afterPacketBytes: Int)
    /// A control-point request with this opcode is not processed; the device answers with `result`
    /// (Secure: `60 op result [extendedError]`; legacy: `10 op result`).
    case respond(opcode: UInt8, result: UInt8, extendedError: UInt8?, trigger: FaultTrigger)
    /// From the n-th control-point write on, the device stops answering (no write responses, no
    /// notifications, packets ignored) until the central disconnects.
    case stall(afterControlPointWrites: Int)
    /// The Secure bootloader drops data writes whose length is not a multiple of 4 even when its options
    /// accept them (SDK 15+ fstorage behaviour).
    case rejectMisalignedWrites
    /// The ATT MTU is capped at this value whatever both sides request.
    case capMTU(Int)
}

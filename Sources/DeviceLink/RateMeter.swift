/// Measures a transfer: its average and current speed, and the time left.
///
/// The average runs since the part's data began, the current speed over the last second, and the time left is at
/// the average. One meter serves every protocol: nRF5 DFU's parts and SMP's images alike.
///
/// The average is measured per part from the first report of its data transfer, so connection set-up, the init
/// packet and an SMP device's first erase do not dilute it. A new part starts a new measurement.
package struct RateMeter: Sendable {
    /// One measurement.
    package struct Reading: Sendable, Equatable {
        /// Confirmed bytes per second since the part's data began, `nil` until there is something to divide.
        package var averageBytesPerSecond: Double?
        /// Confirmed bytes per second over about the last second, `nil` until two readings span some time.
        package var currentBytesPerSecond: Double?
        /// The time left for the part at the average speed, `nil` while unknown.
        package var estimatedRemaining: Duration?
    }

    /// How far back the current speed looks.
    package static let window: Duration = .seconds(1)

    private var part: Int?
    private var start: Sample?
    /// Readings of the current part within ``window``, oldest first.
    private var recent: [Sample] = []

    private struct Sample: Sendable {
        var time: Duration
        var bytes: Int
    }

    /// Creates a meter.
    package init() {}

    /// Takes one reading.
    ///
    /// - Parameters:
    ///   - part: The part (image) the bytes belong to; another part starts a new measurement.
    ///   - isTransferring: Whether the part's data is moving (the average starts at the first such reading).
    ///   - bytesConfirmed: Bytes of the part the device confirmed so far.
    ///   - totalBytes: The part's size.
    ///   - now: Session time.
    /// - Returns: The speeds and the time left.
    package mutating func measure(
        part: Int, isTransferring: Bool, bytesConfirmed: Int, totalBytes: Int, at now: Duration
    ) -> Reading {
        if part != self.part {
            self.part = part
            start = nil
            recent = []
        }
        if isTransferring, start == nil { start = Sample(time: now, bytes: bytesConfirmed) }
        guard let start else { return Reading() }
        recent.append(Sample(time: now, bytes: bytesConfirmed))
        while recent.count > 2, now - recent[1].time >= Self.window { recent.removeFirst() }
        var reading = Reading()
        if let average = Self.speed(from: start, to: Sample(time: now, bytes: bytesConfirmed)) {
            reading.averageBytesPerSecond = average
            let left = Double(max(0, totalBytes - bytesConfirmed)) / average
            reading.estimatedRemaining = .milliseconds(Int64((left * 1000).rounded()))
        }
        if let oldest = recent.first {
            reading.currentBytesPerSecond = Self.speed(from: oldest, to: Sample(time: now, bytes: bytesConfirmed))
        }
        return reading
    }

    /// Bytes per second between two samples, `nil` when no time passed or no byte moved.
    private static func speed(from earlier: Sample, to later: Sample) -> Double? {
        guard later.time > earlier.time, later.bytes > earlier.bytes else { return nil }
        let span = later.time - earlier.time
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        return Double(later.bytes - earlier.bytes) / seconds
    }
}

/// The timing of a BLE connection, from the physics of the radio (dfu-protocols.md §4.2 / users.md §4.2).
///
/// Central-to-peripheral data travels as LL data PDUs scheduled into connection events: an event starts every
/// ``connectionInterval`` and carries at most ``packetsPerConnectionEvent`` PDUs, each costing one exchange: the
/// data PDU, T_IFS (150 µs), the peer's empty PDU, T_IFS. An ATT write of `n` value bytes is an L2CAP PDU of
/// `n + 3 + 4` bytes fragmented into LL payloads of at most ``dataLength`` octets. A peripheral's notification or
/// response goes out in the first connection event after it is ready. Encryption, retransmissions and the
/// controller's own scheduling gaps are not modelled: the model is an upper bound, which is what a benchmark
/// ratio needs.
package struct LinkModel: Sendable, Equatable {
    /// The physical layer.
    package enum PHY: Sendable, Equatable, CustomStringConvertible {
        /// LE 1M: 1 µs per bit, 1-byte preamble.
        case le1M
        /// LE 2M: 0.5 µs per bit, 2-byte preamble.
        case le2M

        package var description: String { self == .le1M ? "1M" : "2M" }
    }

    package var phy: PHY
    /// The connection interval (7.5 ms to 4 s in steps of 1.25 ms).
    package var connectionInterval: Duration
    /// The most LL PDUs the controllers exchange in one connection event.
    package var packetsPerConnectionEvent: Int
    /// The LL data payload length (27 without Data Length Extension, up to 251 with it).
    package var dataLength: Int
    /// The ATT MTU the central asks for (the device may grant less).
    package var mtu: Int
    /// Connection set-up plus service discovery, as one figure.
    package var connectionSetup: Duration

    /// The inter-frame space.
    package static let interFrameSpace = Duration.microseconds(150)

    /// Creates a link model.
    ///
    /// The defaults are a fast link that Linux and a recent nRF52 negotiate when both allow it: LE 2M, 7.5 ms
    /// interval, DLE 251, MTU 247, and six PDUs per event (a common SoftDevice event length of 7.5 ms holds about
    /// five full 2M exchanges of 1.4 ms).
    ///
    /// - Parameters:
    ///   - phy: The PHY.
    ///   - connectionInterval: The connection interval.
    ///   - packetsPerConnectionEvent: PDUs per connection event.
    ///   - dataLength: The LL data payload length.
    ///   - mtu: The ATT MTU requested.
    ///   - connectionSetup: Time to connect and discover services.
    package init(
        phy: PHY = .le2M,
        connectionInterval: Duration = .microseconds(7500),
        packetsPerConnectionEvent: Int = 6,
        dataLength: Int = 251,
        mtu: Int = 247,
        connectionSetup: Duration = .milliseconds(150)
    ) {
        precondition((27...251).contains(dataLength), "LL data length \(dataLength) is outside 27...251")
        precondition((23...517).contains(mtu), "ATT MTU \(mtu) is outside 23...517")
        precondition(packetsPerConnectionEvent >= 1, "at least one PDU per connection event")
        self.phy = phy
        self.connectionInterval = connectionInterval
        self.packetsPerConnectionEvent = packetsPerConnectionEvent
        self.dataLength = dataLength
        self.mtu = mtu
        self.connectionSetup = connectionSetup
    }

    /// The time on air of an LL data PDU with `payload` octets: preamble, access address (4), header (2),
    /// payload, CRC (3).
    ///
    /// - Parameter payload: LL payload octets.
    /// - Returns: The air time.
    package func airTime(payload: Int) -> Duration {
        let preamble = phy == .le1M ? 1 : 2
        let bits = (preamble + 4 + 2 + payload + 3) * 8
        return phy == .le1M ? .microseconds(bits) : .nanoseconds(bits * 500)
    }

    /// One exchange: a data PDU with `payload` octets, T_IFS, the peer's empty PDU, T_IFS.
    ///
    /// - Parameter payload: LL payload octets of the data PDU.
    /// - Returns: The exchange's duration.
    package func exchange(payload: Int) -> Duration {
        airTime(payload: payload) + Self.interFrameSpace + airTime(payload: 0) + Self.interFrameSpace
    }

    /// The LL payload sizes that carry an ATT write of `valueLength` bytes.
    ///
    /// - Parameter valueLength: The attribute value's length.
    /// - Returns: One LL payload length per fragment.
    package func fragments(valueLength: Int) -> [Int] {
        var remaining = valueLength + 3 + 4
        var sizes: [Int] = []
        while remaining > 0 {
            sizes.append(min(remaining, dataLength))
            remaining -= dataLength
        }
        return sizes
    }

    /// What the link can carry at best: write commands of `valueLength` bytes, back to back, in bytes of attribute
    /// value per second.
    ///
    /// - Parameter valueLength: The attribute value's length (ATT MTU − 3 for full packets).
    /// - Returns: The ceiling in bytes per second.
    package func ceiling(valueLength: Int) -> Double {
        var scheduler = LinkScheduler(model: self, origin: .zero)
        let count = 2000
        var last = Duration.zero
        for _ in 0..<count { last = scheduler.send(valueLength: valueLength, readyAt: .zero) }
        return Double(count * valueLength) / last.seconds
    }
}

/// Assigns central-to-peripheral PDUs to connection events, in order (also the SMP simulator's link).
package struct LinkScheduler: Sendable {
    package let model: LinkModel
    /// When connection event 0 started.
    package let origin: Duration
    private var event = 0
    /// Time used in the current event so far.
    private var used = Duration.zero
    private var pdusInEvent = 0

    package init(model: LinkModel, origin: Duration) {
        self.model = model
        self.origin = origin
    }

    /// The start of the first connection event at or after `time` (strictly after, if `strictly`).
    func eventStart(after time: Duration, strictly: Bool) -> Duration {
        guard time > origin else { return origin }
        let elapsed = time - origin
        var index = Int(elapsed / model.connectionInterval)
        let start = origin + model.connectionInterval * index
        if start < time || (strictly && start == time) { index += 1 }
        return origin + model.connectionInterval * index
    }

    /// Queues an ATT write of `valueLength` bytes that the host hands over at `readyAt`, behind everything queued
    /// before it; returns when its last fragment has reached the peer.
    package mutating func send(valueLength: Int, readyAt: Duration) -> Duration {
        var arrival = readyAt
        for payload in model.fragments(valueLength: valueLength) {
            let exchange = model.exchange(payload: payload)
            let currentStart = origin + model.connectionInterval * event
            let earliestEvent = eventStart(after: readyAt, strictly: false)
            if earliestEvent > currentStart {
                event = Int((earliestEvent - origin) / model.connectionInterval)
                used = .zero
                pdusInEvent = 0
            }
            if pdusInEvent >= model.packetsPerConnectionEvent || used + exchange > model.connectionInterval {
                event += 1
                used = .zero
                pdusInEvent = 0
            }
            let start = origin + model.connectionInterval * event + used
            arrival = start + model.airTime(payload: payload)
            used += exchange
            pdusInEvent += 1
        }
        return arrival
    }

    /// When a peripheral-to-central PDU ready at `time` reaches the central: in the next connection event.
    package func deliveryToCentral(readyAt time: Duration, payload: Int) -> Duration {
        eventStart(after: time, strictly: true) + model.airTime(payload: min(payload + 3 + 4, model.dataLength))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

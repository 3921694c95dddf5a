package import DeviceLink
import SMP
package import SMPTargetAdapter
import Synchronization

/// An `SMPTransport` to a ``SimulatedSMPDevice`` over a modelled BLE link (the SMP characteristic: write without
/// response, answers by notification), in virtual time: `nrfloader upload --target sim:smp`.
///
/// Timing: a request frame is split into writes of at most ATT MTU − 3 bytes and scheduled into connection events
/// by the `LinkModel` (each write's L2CAP PDU fragmented into LL payloads); the device handles requests one at a
/// time, taking nRF52 flash time (85 ms per 4 KiB page erased when an upload starts, 41 µs per word written); an
/// answer goes out in the first connection event after it is ready. A reset answers, waits 250 ms
/// (`CONFIG_MCUMGR_GRP_OS_RESET_MS`), reboots (MCUboot's swap takes ``SimulatedSMPDevice/nextBootSwapDuration``) and
/// the central notices the link loss after Linux's default LE supervision timeout, 420 ms.
///
/// Faults (`--sim-fault`), counted on SMP frames: `drop-packet@N` (a request is lost), `drop-notification@N` and
/// `duplicate-notification@N` (an answer), `disconnect@BYTES` and `reboot@BYTES` (once the device has received
/// that many request bytes), `stall@N` (no answers from the Nth request on, until the central disconnects),
/// `respond@ID:RC` (the first image-group request with command ID answers with image-group RC, both hex), `mtu@N`.
package final class SimulatedSMPTransport: SMPTransport {
    package let clock = VirtualClock()
    private let simulation: Mutex<SMPSimulation>
    private let speed: Double?

    /// Which `--sim-fault` kinds make sense for an SMP device; the message for the others.
    ///
    /// - Parameter fault: A parsed fault.
    /// - Returns: `nil` when supported, else why not.
    package static func unsupportedReason(_ fault: Fault) -> String? {
        switch fault {
        case .dropPacket, .dropNotification, .duplicateNotification, .disconnect, .reboot, .stall, .respond, .capMTU:
            nil
        case .duplicatePacket, .corruptPacket, .corruptNotification, .rejectMisalignedWrites:
            "is not simulated for sim:smp (supported: drop-packet, drop-notification, duplicate-notification, "
                + "disconnect, reboot, stall, respond, mtu)"
        }
    }

    /// Creates a link to `device`.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - link: The radio link's timing.
    ///   - faults: Faults to inject.
    ///   - speed: `nil` to run as fast as possible, else wall-clock pacing (1 = real time).
    package init(
        device: SimulatedSMPDevice, link: LinkModel = LinkModel(), faults: FaultPlan = FaultPlan(), speed: Double? = nil
    ) {
        var device = device
        for case .respond(let id, let rc, _, _) in faults.faults { device.forceAnswer(toCommand: id, rc: Int(rc)) }
        simulation = Mutex(SMPSimulation(device: device, link: link, faults: faults))
        self.speed = speed
    }

    /// The device as it is now.
    package var device: SimulatedSMPDevice { simulation.withLock { $0.device } }

    /// Request frame bytes handed to the link so far.
    package var requestBytes: Int { simulation.withLock { $0.requestBytesSent } }

    package func connect(deadline: VirtualClock.Instant) async throws(LinkError) -> Int {
        try await run { (simulation) throws(LinkError) in try simulation.connect(deadline: deadline.offset) }
    }

    package func send(_ frame: [UInt8]) async throws(LinkError) {
        try await run { (simulation) throws(LinkError) in try simulation.send(frame) }
    }

    package func disconnect() async {
        simulation.withLock { $0.disconnect() }
    }

    package func nextEvent(until deadline: VirtualClock.Instant) async throws(LinkError) -> SMPTransportEvent? {
        try await run { (simulation) throws(LinkError) in simulation.nextEvent(until: deadline.offset) }
    }

    @discardableResult
    private func run<T: Sendable>(_ body: @Sendable (inout SMPSimulation) throws(LinkError) -> T)
        async throws(LinkError) -> T
    {
        let (result, before, after) = simulation.withLock { simulation in
            let before = simulation.now
            let result = Result { () throws(LinkError) in try body(&simulation) }
            return (result, before, simulation.now)
        }
        clock.advance(to: after)
        if let speed, speed > 0, after > before, !Task.isCancelled {
            try? await Task.sleep(for: (after - before) / speed)
        }
        return try result.get()
    }
}

/// The discrete-event simulation behind ``SimulatedSMPTransport``.
struct SMPSimulation: Sendable {
    var device: SimulatedSMPDevice
    let link: LinkModel
    var now = Duration.zero
    var requestBytesSent = 0

    private var connection = 0
    private var isConnected = false
    private var mtu = 23
    private var uplink: LinkScheduler?
    private var deviceReadyAt = Duration.zero
    private var deviceBusyUntil = Duration.zero
    private var events: [Event] = []
    private var eventCounter = 0
    private var faults: SMPFaults

    private struct Event: Sendable {
        var time: Duration
        var order: Int
        var connection: Int
        var kind: Kind

        enum Kind: Sendable {
            case deviceInput([UInt8])
            case answer([UInt8])
            case linkDown(String)
            case deviceReset
        }
    }

    /// Linux's default LE supervision timeout (42 × 10 ms): how long until the central notices a vanished device.
    static let supervisionTimeout = Duration.milliseconds(420)
    /// `CONFIG_MCUMGR_GRP_OS_RESET_MS`: Zephyr's delay between answering reset and resetting.
    static let resetDelay = Duration.milliseconds(250)
    /// Boot time of the application after MCUboot.
    static let bootTime = Duration.milliseconds(100)

    init(device: SimulatedSMPDevice, link: LinkModel, faults: FaultPlan) {
        self.device = device
        self.link = link
        self.faults = SMPFaults(plan: faults)
    }

    mutating func connect(deadline: Duration) throws(LinkError) -> Int {
        let start = max(now, deviceReadyAt)
        guard start + link.connectionSetup <= deadline else {
            now = max(now, deadline)
            throw .deviceNotFound("the simulated SMP device did not advertise before the deadline")
        }
        now = start + link.connectionSetup
        connection += 1
        isConnected = true
        mtu = min(link.mtu, faults.mtuCap ?? 517)
        uplink = LinkScheduler(model: link, origin: now)
        return mtu
    }

    mutating func send(_ frame: [UInt8]) throws(LinkError) {
        guard isConnected, var uplink else { throw .linkLost("not connected to the simulated SMP device") }
        requestBytesSent += frame.count
        var arrival = now
        var remaining = frame.count
        while remaining > 0 {
            let length = min(remaining, mtu - 3)
            arrival = uplink.send(valueLength: length, readyAt: now)
            remaining -= length
        }
        self.uplink = uplink
        if faults.dropsRequest() { return }
        schedule(.deviceInput(frame), at: arrival)
    }

    mutating func disconnect() {
        guard isConnected else { return }
        linkDown(at: now, reason: "disconnected by the central")
    }

    mutating func nextEvent(until deadline: Duration) -> SMPTransportEvent? {
        while let index = earliestEvent(), events[index].time <= deadline {
            let event = events.remove(at: index)
            now = max(now, event.time)
            switch event.kind {
            case .deviceInput(let frame):
                guard event.connection == connection, isConnected else { continue }
                handle(frame)
            case .deviceReset:
                reboot(reason: "device reset")
            case .answer(let frame):
                guard event.connection == connection, isConnected else { continue }
                return .frame(frame)
            case .linkDown(let reason):
                guard event.connection == connection else { continue }
                return .disconnected(reason: reason)
            }
        }
        now = max(now, deadline)
        return nil
    }

    private func earliestEvent() -> Int? {
        events.indices.min { (events[$0].time, events[$0].order) < (events[$1].time, events[$1].order) }
    }

    private mutating func schedule(_ kind: Event.Kind, at time: Duration) {
        eventCounter += 1
        events.append(Event(time: time, order: eventCounter, connection: connection, kind: kind))
    }

    /// The link drops at `time`: nothing more travels on it, and the central hears of it at `time`.
    private mutating func linkDown(at time: Duration, reason: String) {
        isConnected = false
        faults.linkDropped()
        events.removeAll { event in
            guard event.connection == connection else { return false }
            switch event.kind {
            case .deviceInput, .answer, .linkDown: return true
            case .deviceReset: return false
            }
        }
        schedule(.linkDown(reason), at: time)
    }

    private mutating func reboot(reason: String) {
        let swap = device.nextBootSwapDuration
        device.reboot()
        deviceBusyUntil = now
        deviceReadyAt = now + swap + Self.bootTime
        if isConnected { linkDown(at: now + Self.supervisionTimeout, reason: reason) }
    }

    private mutating func handle(_ frame: [UInt8]) {
        switch faults.received(bytes: frame.count) {
        case .disconnect:
            linkDown(at: now + Self.supervisionTimeout, reason: "link lost (fault)")
            return
        case .reboot:
            reboot(reason: "device rebooted (fault)")
            return
        case .none:
            break
        }
        let start = max(now, deviceBusyUntil)
        let output = device.receive(frame)
        let ready = start + Self.processingTime(frame)
        deviceBusyUntil = ready
        guard !faults.stallsAnswer(), let answer = output.answer else { return }
        let copies = faults.answerCopies()
        if copies > 0 {
            let delivery = (uplink ?? LinkScheduler(model: link, origin: now)).deliveryToCentral(
                readyAt: ready, payload: min(answer.count, mtu - 3))
            for _ in 0..<copies { schedule(.answer(answer), at: delivery) }
        }
        if output.resetsAfterAnswer { schedule(.deviceReset, at: ready + Self.resetDelay) }
    }

    /// The device's time for a request: flash erase of the whole image when an upload starts, and the flash write.
    private static func processingTime(_ frame: [UInt8]) -> Duration {
        guard let decoded = try? SMPFrame(decoding: frame), decoded.header.group == 1, decoded.header.command == 1,
            case .bytes(let data)? = decoded.body["data"]
        else { return .microseconds(200) }
        var time = Duration.microseconds(41) * ((data.count + 3) / 4) + .microseconds(200)
        if decoded.body["off"]?.intValue == 0, let length = decoded.body["len"]?.intValue {
            time += .milliseconds(85) * ((length + 4095) / 4096)
        }
        return time
    }
}

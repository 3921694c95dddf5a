/// A simulated device behind Zephyr's UDP transport (`smp_udp.c`), as a sans-IO machine: one request datagram in,
/// at most one answer datagram out, with time as an argument.
///
/// After answering OS reset the device is deaf for `CONFIG_MCUMGR_GRP_OS_RESET_MS` (250 ms), plus MCUboot's swap
/// (``SimulatedSMPDevice/nextBootSwapDuration``) when ``takesSwapTime`` is set, then boots: datagrams that arrive meanwhile are lost, as they are
/// on a network whose device is rebooting. Datagrams listed in ``droppedRequests`` are lost on the way in, once each.
package struct SMPDatagramDevice: Sendable {
    /// The device.
    package private(set) var device: SimulatedSMPDevice
    /// The request datagrams (1-based, counted from the start) that are lost on the way in.
    package var droppedRequests: Set<Int> = []
    /// Whether a boot takes MCUboot's swap time at nRF52 flash timings (seconds for a large image), or none.
    package var takesSwapTime = false
    /// Request datagrams received so far, the lost ones included.
    package private(set) var requestCount = 0
    /// What happened, one line per event.
    package private(set) var log: [String] = []
    /// When the device boots again after a reset, or `nil` while it runs.
    private var bootsAt: Duration?

    /// The reset delay Zephyr waits after answering reset (`CONFIG_MCUMGR_GRP_OS_RESET_MS`).
    package static let resetDelay = Duration.milliseconds(250)

    /// Creates the machine around `device`.
    package init(device: SimulatedSMPDevice) {
        self.device = device
    }

    /// Boots that swapped a new image in.
    package var activations: Int { device.swapCount }

    /// A request datagram arrived.
    ///
    /// - Parameters:
    ///   - datagram: The datagram.
    ///   - now: Time since the simulator started.
    /// - Returns: The answer datagram, or `nil` when there is none.
    package mutating func receive(_ datagram: [UInt8], at now: Duration) -> [UInt8]? {
        advance(to: now)
        requestCount += 1
        if droppedRequests.contains(requestCount) {
            log.append("request \(requestCount) lost (fault)")
            return nil
        }
        if bootsAt != nil {
            log.append("request \(requestCount) lost: the device is rebooting")
            return nil
        }
        let output = device.receive(datagram)
        if output.resetsAfterAnswer {
            bootsAt = now + Self.resetDelay + (takesSwapTime ? device.nextBootSwapDuration : .zero)
        }
        return output.answer
    }

    /// Lets time pass: a pending reboot happens once its time has come.
    ///
    /// - Parameter now: Time since the simulator started.
    package mutating func advance(to now: Duration) {
        guard let boot = bootsAt, now >= boot else { return }
        bootsAt = nil
        device.reboot()
        log.append("rebooted")
    }
}

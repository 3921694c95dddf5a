import DetachedThread
import DeviceLink
public import NRFLoaderKit
import SMPSimulator
import SMPUDP
import Synchronization

/// Serves simulated Zephyr devices with MCUmgr's UDP transport (`smp_udp.c`), as `nrfloader simulate-udp` does: one
/// SMP frame per datagram, each device on a port of its own.
///
/// Each device is ``SimulatedDeviceKind/smp``: image state, upload, test, confirm, reset with MCUboot's swap, echo,
/// and the other management groups the simulated SMP device has. Any client (`UpdateTarget.udp(_:options:)`,
/// smpmgr `--ip`, mcumgr `--conntype udp`) reaches it at the addresses ``run(stoppingAfterActivations:onReady:)``
/// reports.
public struct UDPDeviceSimulator: Sendable {
    /// The device served (its kind must be ``SimulatedDeviceKind/smp``).
    public var device: SimulatedDeviceProfile
    /// The local address to serve on: `127.0.0.1`, `::1`, or another address of this machine.
    public var host: String
    /// The first device's port (the next ones follow it), or 0 for ports the system picks.
    public var port: UInt16
    /// How many devices, 1 to 1000.
    public var count = 1
    /// Request datagrams (1-based, counted per device) that each device loses on the way in, once each: a lossy
    /// network.
    public var droppedRequests: Set<Int> = []
    /// Whether a boot takes MCUboot's swap time at nRF52 flash timings (seconds for a large image) or none.
    public var takesSwapTime = false

    /// What the devices did.
    public struct Report: Sendable {
        /// Boots that swapped a new image in, per device.
        public var activations: [Int]
        /// The first device's slots when it stopped: `slot0`, `slot1`, ….
        public var images: [SimulatedTarget.Image]
        /// Request datagrams each device received, lost ones included.
        public var requests: [Int]
    }

    /// A simulator of `count` devices like `device` on `host`, from `port` on.
    ///
    /// - Parameters:
    ///   - device: The device (``SimulatedDeviceKind/smp``).
    ///   - host: The local address.
    ///   - port: The first port, 0 for ports the system picks.
    public init(serving device: SimulatedDeviceProfile, host: String = "127.0.0.1", port: UInt16 = 1337) {
        self.device = device
        self.host = host
        self.port = port
    }

    /// Serves until the task is cancelled or every device has activated `limit` images.
    ///
    /// - Parameters:
    ///   - limit: Stop once every device activated this many images (at least 1); `nil` serves until cancelled.
    ///   - onReady: Called once every socket is bound, with each device's address (`udp:127.0.0.1:1337`).
    /// - Returns: What the devices did.
    /// - Throws: `UpdateError` with `ExitStatus/usage` for options the simulator does not take, and
    ///   `ExitStatus/unavailable` when a port cannot be bound.
    public func run(
        stoppingAfterActivations limit: Int? = nil, onReady: (_ addresses: [UDPDeviceAddress]) -> Void = { _ in }
    ) async throws(UpdateError) -> Report {
        func refuse(_ message: String) -> UpdateError { UpdateError(OptionError(message: message), status: .usage) }
        guard device.kind == .smp else { throw refuse("a UDP device is smp, not \(device.kind.rawValue)") }
        try device.validate()
        guard (1...1000).contains(count) else { throw refuse("a UDP simulator serves 1 to 1000 devices") }
        if let limit, limit < 1 { throw refuse("a simulator stops after at least 1 activation") }
        let server: UDPDatagramServer
        do { server = try UDPDatagramServer(host: host, port: port, count: count) } catch {
            throw UpdateError(UpdateFailure(.smpCommand(.transport(error)), deviceWasReached: false))
        }
        var template = SMPDatagramDevice(device: device.smpDevice())
        template.droppedRequests = droppedRequests
        template.takesSwapTime = takesSwapTime
        let devices = Mutex([SMPDatagramDevice](repeating: template, count: count))
        onReady(server.addresses.map { UDPDeviceAddress(host: hostText($0.description), port: $0.port) })
        let stop = Mutex(false)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                startDetachedThread {
                    server.run(
                        until: {
                            stop.withLock { $0 }
                                || limit.map { limit in devices.withLock { $0.allSatisfy { $0.activations >= limit } } }
                                    ?? false
                        },
                        handle: { index, datagram, now in devices.withLock { $0[index].receive(datagram, at: now) } },
                        tick: { now in
                            devices.withLock { devices in
                                for index in devices.indices { devices[index].advance(to: now) }
                            }
                        })
                    continuation.resume()
                }
            }
        } onCancel: {
            stop.withLock { $0 = true }
        }
        let final = devices.withLock { $0 }
        return Report(
            activations: final.map(\.activations), images: SimulatedTarget.images(of: final[0].device),
            requests: final.map(\.requestCount))
    }

    /// The host part of `HOST:PORT` or `[ADDR]:PORT`.
    private func hostText(_ address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        return String(address.prefix { $0 != ":" })
    }
}

package import BlueZTransport
package import DeviceLink
import SMP
package import SMPTargetAdapter
import Synchronization

/// An `SMPTransport` over BlueZ: SMP's characteristic (DA2E7828-…, in service 8D53DC1D-…) on a device that
/// `BlueZGATTTransport` connects to, with the same discovery, connection gate, service resolution, socket paths and
/// link-loss reporting as an nRF5 DFU.
///
/// A request frame is split into writes without response of at most ATT MTU − 3 bytes, sent in order (through the
/// `AcquireWrite` socket when BlueZ offers one); Zephyr reassembles it by the header's length (`smp_reassembly.c`).
/// Answers come as notifications of at most MTU − 3 bytes and are reassembled here by the header's length
/// (`SMPFrame.totalLength(ofFrameStartingWith:)`). A device that offers nRF5 DFU but not SMP is refused at
/// connection, naming both.
package final class BlueZSMPTransport: SMPTransport {
    /// The GATT transport underneath.
    package let gatt: BlueZGATTTransport
    private let request: ConnectionRequest
    private let link = Mutex(Link())

    private struct Link {
        /// The ATT MTU of the current connection.
        var mtu = 23
        /// Notification bytes of an answer not yet complete.
        var pending: [UInt8] = []
        /// Complete answers not yet handed out (one notification may end one answer and start the next).
        var frames: [[UInt8]] = []
    }

    /// Creates a transport to one device.
    ///
    /// - Parameters:
    ///   - gatt: The BlueZ transport, opened on the adapter to use.
    ///   - request: The device's address (and name, when it was found by name).
    package init(gatt: BlueZGATTTransport, request: ConnectionRequest) {
        self.gatt = gatt
        self.request = request
    }

    /// The transport's clock: BlueZ's wall clock.
    package var clock: ContinuousClock { gatt.clock }

    package func connect(deadline: ContinuousClock.Instant) async throws(LinkError) -> Int {
        link.withLock { $0 = Link() }
        let connection: LinkConnection
        do {
            connection = try await gatt.connectLink(request, deadline: deadline)
        } catch {
            throw Self.smpError(error)
        }
        guard connection.offersSMP else {
            await gatt.disconnect()
            throw .unavailable(Self.notSMP(connection))
        }
        do {
            try await gatt.enableNotifications(on: .smp)
        } catch {
            throw Self.smpError(error)
        }
        link.withLock { $0.mtu = connection.mtu }
        return connection.mtu
    }

    package func send(_ frame: [UInt8]) async throws(LinkError) {
        let size = max(link.withLock { $0.mtu } - 3, 20)
        let writes = stride(from: 0, to: frame.count, by: size).map { Array(frame[$0..<min($0 + size, frame.count)]) }
        do {
            try await gatt.writeWithoutResponse(to: .smp, writes)
        } catch {
            throw Self.smpError(error)
        }
    }

    package func disconnect() async {
        await gatt.disconnect()
    }

    package func nextEvent(until deadline: ContinuousClock.Instant) async throws(LinkError)
        -> SMPTransportEvent?
    {
        while true {
            if let frame = link.withLock({ $0.frames.isEmpty ? nil : $0.frames.removeFirst() }) {
                return .frame(frame)
            }
            guard let event = await gatt.nextLinkEvent(until: deadline) else { return nil }
            switch event {
            case .notification(.smp, let bytes):
                link.withLock { link in
                    link.pending += bytes
                    while let total = SMPFrame.totalLength(ofFrameStartingWith: link.pending),
                        link.pending.count >= total
                    {
                        link.frames.append(Array(link.pending[..<total]))
                        link.pending.removeFirst(total)
                    }
                }
            case .notification:
                // Not subscribed by this transport; nothing for SMP.
                continue
            case .disconnected(let reason):
                // Part of an answer is lost with the link: the next connection starts clean.
                link.withLock { $0.pending.removeAll() }
                return .disconnected(reason: reason)
            }
        }
    }

    /// The refusal of a device without SMP, naming what it offers instead.
    private static func notSMP(_ connection: LinkConnection) -> String {
        let offered = connection.dfuServicesDescription
        let what = offered.isEmpty ? "neither nRF5 DFU nor SMP" : "nRF5 " + offered.joined(separator: " and ")
        return "\(connection.address) offers \(what), not SMP (MCUmgr service \(LinkCharacteristic.smpServiceUUID)): "
            + "an MCUboot image goes over SMP only"
    }

    /// An ATT error answer is a failed write here: SMP has no refused link operation (its refusals are `rc` answers).
    private static func smpError(_ error: LinkError) -> LinkError {
        error.kind == .rejected ? .failed(error.cause) : error
    }
}

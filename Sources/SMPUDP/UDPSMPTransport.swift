import DetachedThread
package import DeviceLink
import SMP
package import SMPTargetAdapter
import Synchronization

/// SMP over UDP, as Zephyr's UDP transport (`smp_udp.c`) serves it: one SMP frame per datagram, each way.
///
/// UDP has no connection. `connect(deadline:)` opens a socket bound to the device's address (a new local port each
/// time, so that late answers to an earlier socket never arrive on this one) and sends OS echo every
/// ``Options/probeInterval`` until the device answers one of them, however late, any answer counting (a device built
/// without echo answers rc 8): the device is reached, or the connection fails naming the endpoint, and whether its
/// port refused the datagrams (ICMP port unreachable). It returns a budget of ``Options/datagramLimit`` (Zephyr's
/// `CONFIG_MCUMGR_TRANSPORT_UDP_MTU`, 1500) plus 3, the most one request may take whatever the device's `buf_size`.
///
/// Nothing tells a UDP client that the device reset, so the answer to OS reset stands for the link's loss: the
/// transport hands the answer on, then reports the link down, and the next `connect(deadline:)` probes until the
/// device is back. A lost datagram shows as an answer that never comes: the machine's timer sends the request again.
///
/// Datagrams are read on a thread of the transport's own, blocked in `poll`; the task that waits in
/// `nextEvent(until:)` is resumed when one arrives, and never blocks a thread of the cooperative pool.
package final class UDPSMPTransport: SMPTransport {
    /// How to reach the device.
    package struct Options: Sendable {
        /// The device's address and port.
        package var endpoint: UDPEndpoint
        /// The largest datagram the device takes (`CONFIG_MCUMGR_TRANSPORT_UDP_MTU`, 1500 by default).
        package var datagramLimit = 1500
        /// How long each echo waits for its answer before the next one.
        package var probeInterval: Duration = .milliseconds(500)

        /// Creates options for `endpoint`.
        package init(endpoint: UDPEndpoint) {
            self.endpoint = endpoint
        }
    }

    /// One socket and its reader thread.
    private final class Connection: Sendable {
        let socket: UDPSocket
        let mailbox = UDPMailbox<Arrival>()
        let stopped = Mutex(false)

        init(socket: UDPSocket) {
            self.socket = socket
        }

        /// Reads until stopped, then closes the socket (the reader is its last user).
        func startReading() {
            startDetachedThread { [self] in
                while !stopped.withLock({ $0 }) {
                    switch socket.receive(waitingMilliseconds: 100) {
                    case .datagram(let bytes, _): mailbox.post(.datagram(bytes))
                    case .refused: mailbox.post(.refused)
                    case .nothing: continue
                    case .closed: stopped.withLock { $0 = true }
                    }
                }
                socket.close()
            }
        }

        func stop() {
            stopped.withLock { $0 = true }
            socket.shutDown()
        }
    }

    /// What the reader thread found.
    private enum Arrival: Sendable {
        case datagram([UInt8])
        case refused
    }

    private struct State: Sendable {
        var connection: Connection?
        /// Events made by the transport itself (a reset's link loss), handed out before any datagram.
        var pending: [SMPTransportEvent] = []
        var probeSequence: UInt8 = 0
        /// The sequence numbers of the probes sent on the current socket.
        var probeSequences: Set<UInt8> = []
    }

    package let clock = ContinuousClock()
    private let options: Options
    private let state = Mutex(State())

    /// Creates a transport; nothing is opened until `connect(deadline:)`.
    ///
    /// - Parameter options: The endpoint and limits.
    package init(options: Options) {
        self.options = options
    }

    private var place: String { "udp \(options.endpoint)" }

    // MARK: SMPTransport

    package func connect(deadline: ContinuousClock.Instant) async throws(LinkError) -> Int {
        closeConnection()
        state.withLock {
            $0.pending.removeAll()
            $0.probeSequences.removeAll()
        }
        let address = try UDPSocket.resolve(options.endpoint)
        let connection = Connection(socket: try UDPSocket.connected(to: address))
        connection.startReading()
        state.withLock { $0.connection = connection }
        var refused = false
        /// Reads what arrived; true once an answer to one of this socket's probes is among it (an answer to any of
        /// them will do: on a slow network, or a busy host, it may come after the next probe went out).
        func answered() -> Bool {
            while let arrival = connection.mailbox.take() {
                switch arrival {
                case .refused:
                    refused = true
                case .datagram(let bytes):
                    if let answered = SMPLinkProbe.answeredSequence(bytes),
                        state.withLock({ $0.probeSequences.contains(answered) })
                    {
                        return true
                    }
                }
            }
            return false
        }
        while true {
            // What arrived while this task waited its turn counts before the deadline is judged.
            if answered() { return options.datagramLimit + 3 }
            if clock.now >= deadline || Task.isCancelled {
                closeConnection()
                let why =
                    refused
                    ? "its port refused the datagrams (ICMP port unreachable): nothing listens there"
                    : "no answer"
                throw .deviceNotFound(
                    "no answer to SMP echo at \(place) (\(why)): is the application built with the MCUmgr UDP "
                        + "transport (CONFIG_MCUMGR_TRANSPORT_UDP), and is this its address and port?")
            }
            let sequence = state.withLock { state -> UInt8 in
                state.probeSequence &+= 1
                state.probeSequences.insert(state.probeSequence)
                return state.probeSequence
            }
            let probe = SMPLinkProbe.request(sequence: sequence)
            _ = connection.socket.send(probe)
            let waitEnd = min(deadline, clock.now.advanced(by: options.probeInterval))
            while clock.now < waitEnd, !Task.isCancelled {
                if answered() { return options.datagramLimit + 3 }
                await connection.mailbox.wait(until: waitEnd, clock: clock)
            }
        }
    }

    package func send(_ frame: [UInt8]) async throws(LinkError) {
        guard let connection = state.withLock({ $0.connection }) else { throw .linkLost("\(place): not connected") }
        guard frame.count <= options.datagramLimit else {
            throw .failed(
                "\(place): a \(frame.count)-byte request exceeds the \(options.datagramLimit)-byte datagram limit")
        }
        // A refused port (an ICMP message for an earlier datagram) is not a lost link: the answer's timer decides.
        guard let problem = connection.socket.send(frame), !problem.contains("refused") else { return }
        if closeConnection() { state.withLock { $0.pending.append(.disconnected(reason: "\(place): \(problem)")) } }
        throw .linkLost("\(place): \(problem)")
    }

    package func disconnect() async {
        if closeConnection() { state.withLock { $0.pending.append(.disconnected(reason: "socket closed")) } }
    }

    package func nextEvent(until deadline: ContinuousClock.Instant) async throws(LinkError) -> SMPTransportEvent? {
        while true {
            if let event = state.withLock({ $0.pending.isEmpty ? nil : $0.pending.removeFirst() }) { return event }
            guard let connection = state.withLock({ $0.connection }) else {
                // Closed, and its loss already reported: nothing can arrive before the deadline.
                try? await Task.sleep(until: deadline, clock: clock)
                return nil
            }
            if let arrival = connection.mailbox.take() {
                switch arrival {
                case .refused:
                    return .log("\(place): the port refused a datagram (ICMP port unreachable)")
                case .datagram(let bytes):
                    if isLateProbeAnswer(bytes) { continue }
                    if Self.isResetAnswer(bytes), closeConnection() {
                        state.withLock {
                            $0.pending.append(.disconnected(reason: "device resetting (answered OS reset)"))
                        }
                    }
                    return .frame(bytes)
                }
            }
            if clock.now >= deadline || Task.isCancelled { return nil }
            await connection.mailbox.wait(until: deadline, clock: clock)
        }
    }

    // MARK: Internals

    /// Stops the current socket's reader, if any; returns whether there was one.
    @discardableResult
    private func closeConnection() -> Bool {
        let connection = state.withLock { state -> Connection? in
            defer { state.connection = nil }
            return state.connection
        }
        connection?.stop()
        return connection != nil
    }

    /// Whether `frame` answers one of this socket's probes late (see `SMPLinkProbe.isLateAnswer`).
    private func isLateProbeAnswer(_ frame: [UInt8]) -> Bool {
        SMPLinkProbe.isLateAnswer(frame, toOneOf: state.withLock { $0.probeSequences })
    }

    /// Whether `frame` is a successful answer to OS reset: the device resets `CONFIG_MCUMGR_GRP_OS_RESET_MS` later.
    static func isResetAnswer(_ frame: [UInt8]) -> Bool {
        guard let answer = try? SMPFrame(decoding: frame), answer.header.operation.isResponse,
            answer.header.group == SMPCommand.reset.group.rawValue, answer.header.command == SMPCommand.reset.id
        else { return false }
        return (try? SMPResponse.error(in: answer.body)) == .some(nil)
    }
}

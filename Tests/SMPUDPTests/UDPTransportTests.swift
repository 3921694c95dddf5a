import DetachedThread
import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter
import SMPUDP
import Synchronization
import Testing

/// The UDP transport against a simulated device served on a loopback port by the datagram server, in this process:
/// a request and its answer, a reset standing for the link's loss, a lost datagram, and nothing listening.
@Suite(.serialized) struct UDPTransportTests {
    /// A simulated device on a loopback port, served on a thread until `stop()`.
    final class Served: Sendable {
        let endpoint: UDPEndpoint
        let device: Mutex<SMPDatagramDevice>
        private let stopped = Mutex(false)
        private let finished = Mutex(false)

        init(host: String = "127.0.0.1", dropping: Set<Int> = []) throws {
            let running = UnsignedImageBuilder.image(
                version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
                body: [UInt8](repeating: 0xA5, count: 4096))
            var datagrams = SMPDatagramDevice(
                device: SimulatedSMPDevice(
                    configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: running))
            datagrams.droppedRequests = dropping
            device = Mutex(datagrams)
            let server = try UDPDatagramServer(host: host, port: 0, count: 1)
            endpoint = UDPEndpoint(host: host, port: server.addresses[0].port)
            startDetachedThread { [self] in
                server.run(
                    until: { stopped.withLock { $0 } },
                    handle: { _, datagram, now in device.withLock { $0.receive(datagram, at: now) } },
                    tick: { now in device.withLock { $0.advance(to: now) } })
                finished.withLock { $0 = true }
            }
        }

        /// Stops the server and returns once its sockets are closed (it checks its flag every 20 ms).
        func stop() async {
            stopped.withLock { $0 = true }
            while !finished.withLock({ $0 }) { await Task.yield() }
        }
    }

    /// Runs `body` with a served device, and stops it after.
    private func withServed(
        host: String = "127.0.0.1", dropping: Set<Int> = [], _ body: (Served) async throws -> Void
    ) async throws {
        let served = try Served(host: host, dropping: dropping)
        do { try await body(served) } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// Runs one exchange.
    ///
    /// One probe per connection (a probe interval of 60 s), so that the device's request count is known however busy
    /// the machine is: other suites' tests that wait for processes can hold every thread of the cooperative pool for
    /// seconds, and this test's task runs late.
    private func exchange(
        _ request: SMPManagementRequest, _ endpoint: UDPEndpoint,
        configuration: SMPExchangeConfiguration = SMPExchangeConfiguration(), probeInterval: Duration = .seconds(60)
    ) async -> (SMPExchangeAdapter<UDPSMPTransport>.Outcome, [String]) {
        var logs: [String] = []
        var options = UDPSMPTransport.Options(endpoint: endpoint)
        options.probeInterval = probeInterval
        let transport = UDPSMPTransport(options: options)
        let outcome = await SMPExchangeAdapter(
            transport: transport, exchange: SMPExchange(request: request, configuration: configuration)
        ).run { logs.append($0) }
        return (outcome, logs)
    }

    @Test("echo over IPv4 and IPv6 loopback: one datagram each way", arguments: ["127.0.0.1", "::1"])
    func echo(host: String) async throws {
        try await withServed(host: host) { served in
            let (outcome, logs) = await exchange(.echo("over UDP"), served.endpoint)
            #expect(outcome == .completed(SMPExchangeResult(reply: .echoed("over UDP"), attempts: 1)))
            #expect(logs.first == "connected, MTU 1503", "\(logs)")
            // The connection's probe and the request.
            #expect(served.device.withLock { $0.requestCount } == 2)
        }
    }

    @Test("reset: its answer stands for the link's loss, and the device boots 250 ms later")
    func reset() async throws {
        try await withServed { served in
            let (outcome, _) = await exchange(.reset, served.endpoint)
            #expect(outcome == .completed(SMPExchangeResult(reply: .reset(answered: true), attempts: 1)))
            // The device is deaf while it reboots: probes every 0.5 s, as the transport's default.
            let (echo, _) = await exchange(.echo("back"), served.endpoint, probeInterval: .milliseconds(500))
            #expect(echo == .completed(SMPExchangeResult(reply: .echoed("back"), attempts: 1)))
            #expect(served.device.withLock { $0.device.bootCount } == 2)
        }
    }

    @Test("a lost request datagram: no answer within the wait, sent again on a new socket")
    func lostDatagram() async throws {
        try await withServed(dropping: [2]) { served in
            var configuration = SMPExchangeConfiguration()
            configuration.responseTimeout = .seconds(2)
            let (outcome, logs) = await exchange(.echo("again"), served.endpoint, configuration: configuration)
            #expect(outcome == .completed(SMPExchangeResult(reply: .echoed("again"), attempts: 2)))
            #expect(logs.contains("no answer to echo within 2.0 seconds; reconnecting to send it again"), "\(logs)")
        }
    }

    @Test("nothing listening: the connection fails naming the endpoint and the refusal, the device never reached")
    func nothingListening() async throws {
        let served = try Served()
        let endpoint = served.endpoint
        await served.stop()
        var configuration = SMPExchangeConfiguration()
        configuration.connectionTimeout = .seconds(2)
        let (outcome, _) = await exchange(
            .echo("x"), endpoint, configuration: configuration, probeInterval: .milliseconds(200))
        guard case .failed(.transport(let error), let reached) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(!reached && error.kind == .deviceNotFound)
        #expect(
            error.cause.hasPrefix(
                "no answer to SMP echo at udp \(endpoint) (its port refused the datagrams (ICMP port unreachable)"),
            "\(error.cause)")
    }
}

import BlueZ
import BlueZTransport
import DFUSimulator
import DeviceLink
import MCUbootImage
import SMP
import SMPBlueZ
import SMPSimulator
import SMPTargetAdapter
import SimulatedPeripheral
import Synchronization
import TestSupport
import Testing

/// SMP over BlueZ in this process, on the bluezoo rig: the simulated Zephyr device served on hci1, the transport on
/// hci0 splitting requests into MTU-sized writes and reassembling answers from notifications.
@Suite(
    "BlueZSMPTransport on the BlueZ rig", .tags(.integration),
    .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct BlueZSMPTransportTests {
    /// Whether the served device registered yet, and where.
    final class Registration: Sendable {
        let adapter = Mutex<AdapterInfo?>(nil)

        /// The adapter, waiting up to two minutes for the registration (see ``rigWait``).
        func wait() async throws -> AdapterInfo? {
            try await eventually(within: rigWait) { self.adapter.withLock { $0 } }
        }
    }

    static let running = UnsignedImageBuilder.image(
        version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0), body: [UInt8](repeating: 0xA5, count: 4096))

    /// Serves a simulated SMP device on hci1 and runs `body` with a BlueZ SMP transport to it from hci0.
    static func withDevice(_ body: (BlueZSMPTransport) async throws -> Void) async throws {
        try await BlueZRig.with { rig in
            let server = try await BlueZClient.connect(.address(rig.bus.address))
            defer { server.connection.close() }
            let peripheral = SimulatedSMPPeripheral(
                client: server, adapter: try await server.adapter(named: "hci1"),
                device: SimulatedSMPDevice(
                    configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: running))
            let registration = Registration()
            let serving = Task {
                try await peripheral.run { event in
                    if case .registered(let adapter, _, _) = event { registration.adapter.withLock { $0 = adapter } }
                }
            }
            defer { peripheral.stop() }
            let adapter = try #require(try await registration.wait(), "not registered; rig log:\n\(rig.log)")
            let address = try #require(adapter.address)

            let central = try await BlueZClient.connect(.address(rig.bus.address))
            defer { central.connection.close() }
            let gatt = try await BlueZGATTTransport.open(
                client: central, adapter: try await central.adapter(named: "hci0"))
            try await body(BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: address)))
            peripheral.stop()
            try await serving.value
        }
    }

    /// An exchange of `request`, with the connection deadline of an in-process rig test (``rigConnectionTimeout``).
    static func exchange(_ request: SMPManagementRequest, over transport: BlueZSMPTransport) async
        -> SMPExchangeAdapter<BlueZSMPTransport>.Outcome
    {
        var configuration = SMPExchangeConfiguration()
        configuration.connectionTimeout = rigConnectionTimeout
        return await SMPExchangeAdapter(
            transport: transport, exchange: SMPExchange(request: request, configuration: configuration)
        ).run()
    }

    @Test(
        "an echo longer than the MTU goes out in several writes and comes back reassembled; the image state read too")
    func exchanges() async throws {
        let text = String(repeating: "0123456789", count: 60)
        try await Self.withDevice { transport in
            let echo = await Self.exchange(.echo(text), over: transport)
            #expect(echo == .completed(SMPExchangeResult(reply: .echoed(text), attempts: 1)))
            await transport.disconnect()

            let outcome = await Self.exchange(.readImageState, over: transport)
            guard case .completed(let result) = outcome, case .imageState(let state) = result.reply else {
                Issue.record("no image state: \(outcome)")
                return
            }
            #expect(state.slots.map(\.slot) == [0])
            #expect(state.slots.first?.version == "0.0.1")
            #expect(state.slots.first?.isActive == true)
            await transport.disconnect()
        }
    }

    @Test("a device that offers nRF5 DFU and not SMP is refused at connection, as unavailable")
    func notSMP() async throws {
        try await BlueZRig.with { rig in
            let server = try await BlueZClient.connect(.address(rig.bus.address))
            defer { server.connection.close() }
            var bootloader = SecureBootloaderOptions()
            bootloader.softDeviceFWID = 0x101
            let peripheral = SimulatedPeripheral(
                client: server, adapter: try await server.adapter(named: "hci1"),
                device: SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(bootloader))))
            let registration = Registration()
            let serving = Task {
                try await peripheral.run { event in
                    if case .registered(let registered) = event {
                        registration.adapter.withLock { $0 = registered.adapter }
                    }
                }
            }
            defer { peripheral.stop() }
            let adapter = try #require(try await registration.wait(), "not registered; rig log:\n\(rig.log)")
            let central = try await BlueZClient.connect(.address(rig.bus.address))
            defer { central.connection.close() }
            let gatt = try await BlueZGATTTransport.open(
                client: central, adapter: try await central.adapter(named: "hci0"))
            let transport = BlueZSMPTransport(
                gatt: gatt, request: ConnectionRequest(address: try #require(adapter.address)))
            await #expect {
                _ = try await transport.connect(deadline: .now + rigConnectionTimeout)
            } throws: { error in
                (error as? LinkError)?.kind == .unavailable
            }
            peripheral.stop()
            try await serving.value
        }
    }
}

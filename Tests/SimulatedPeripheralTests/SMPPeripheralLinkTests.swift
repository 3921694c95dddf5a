import BlueZ
import BlueZTransport
import DBus
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

#if canImport(Glibc)
    import Glibc
#endif

/// The simulated SMP device's side of a link on the bluezoo rig: calls that need a connected central.
@Suite(
    "SimulatedSMPPeripheral links on the BlueZ rig", .tags(.integration),
    .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct SMPPeripheralLinkTests {
    /// The SMP characteristic of the first registration, where BlueZ sends a central's calls.
    static let characteristic = "/org/nrfloader/simulator/smp/app1/service0/char0"

    @Test(
        "an AcquireWrite that reaches the device before BlueZ's Connected signal waits for the link, then gets its socket and the link's MTU"
    )
    func holdsAcquireWriteUntilTheLinkIsUp() async throws {
        try await BlueZRig.with { rig in
            let server = try await BlueZClient.connect(.address(rig.bus.address))
            defer { server.connection.close() }
            var options = SMPPeripheralOptions()
            options.offersAcquireWrite = true
            let running = UnsignedImageBuilder.image(
                version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
                body: [UInt8](repeating: 0xA5, count: 4096))
            let peripheral = SimulatedSMPPeripheral(
                client: server, adapter: try await server.adapter(named: "hci1"),
                device: SimulatedSMPDevice(
                    configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: running),
                options: options)
            let registered = Mutex<AdapterInfo?>(nil)
            let serving = Task {
                try await peripheral.run { event in
                    if case .registered(let adapter, _, _) = event { registered.withLock { $0 = adapter } }
                }
            }
            defer { peripheral.stop() }
            let adapter = try #require(
                try await eventually(within: rigWait) { registered.withLock { $0 } }, "not registered:\n\(rig.log)")
            let address = try #require(adapter.address)

            // The call bluezoo forwards for a central, with no options (so no device to take the link from), made
            // before any central connected: as if BlueZ's Connected signal were still on its way.
            let caller = try await BlueZClient.connect(.address(rig.bus.address))
            defer { caller.connection.close() }
            let answered = Mutex(false)
            let early = Task { () throws(DBusError) -> [DBusValue] in
                defer { answered.withLock { $0 = true } }
                return try await caller.connection.call(
                    destination: server.connection.uniqueName, path: Self.characteristic,
                    interface: BlueZInterface.characteristic, member: "AcquireWrite",
                    arguments: [.propertyDictionary([:])], timeout: .seconds(30))
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(!answered.withLock { $0 }, "answered with no central connected")

            // A central connects and talks SMP; the held call is answered for its link.
            let central = try await BlueZClient.connect(.address(rig.bus.address))
            defer { central.connection.close() }
            let gatt = try await BlueZGATTTransport.open(
                client: central, adapter: try await central.adapter(named: "hci0"))
            var configuration = SMPExchangeConfiguration()
            configuration.connectionTimeout = rigConnectionTimeout
            let echo = await SMPExchangeAdapter(
                transport: BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: address)),
                exchange: SMPExchange(request: .echo("held"), configuration: configuration)
            ).run()
            #expect(echo == .completed(SMPExchangeResult(reply: .echoed("held"), attempts: 1)))
            let reply = try await early.value
            #expect(reply.count == 2)
            #expect(reply.last == .uint16(247))
            if case .unixFD(let descriptor) = reply.first { close(descriptor) }

            peripheral.stop()
            try await serving.value
        }
    }
}

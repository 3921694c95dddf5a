import BlueZ
import BlueZTransport
import DFUController
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import SimulatedPeripheral
import Synchronization
import TestSupport
import Testing

/// The central's GATT transport, operation by operation, against a simulated Secure bootloader that
/// `SimulatedPeripheral` serves on the bluezoo rig's second adapter.
@Suite(
    "BlueZGATTTransport on the BlueZ rig", .tags(.integration),
    .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct BlueZGATTTransportTests {
    /// Serves a Secure bootloader on hci1 and runs `body` with a transport on hci0 and the bootloader's address.
    static func withBootloader(
        mtu: Int = 247, options: BlueZGATTTransport.Options = BlueZGATTTransport.Options(),
        _ body: (BlueZGATTTransport, BluetoothAddress) async throws -> Void
    ) async throws {
        try await BlueZRig.with { rig in
            let server = try await BlueZClient.connect(.address(rig.bus.address))
            defer { server.connection.close() }
            var bootloader = SecureBootloaderOptions()
            bootloader.softDeviceFWID = 0x101
            let peripheral = SimulatedPeripheral(
                client: server, adapter: try await server.adapter(named: "hci1"),
                device: SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(bootloader))),
                options: SimulatedPeripheralOptions(mtu: mtu))
            let registered = Mutex<BluetoothAddress?>(nil)
            let serving = Task {
                try await peripheral.run { event in
                    if case .registered(let registration) = event {
                        registered.withLock { $0 = registration.adapter.address }
                    }
                }
            }
            defer { peripheral.stop() }
            let address = try #require(
                try await eventually(within: rigWait) { registered.withLock { $0 } },
                "not registered; rig log:\n\(rig.log)")
            let central = try await BlueZClient.connect(.address(rig.bus.address))
            defer { central.connection.close() }
            let transport = try await BlueZGATTTransport.open(
                client: central, adapter: try await central.adapter(named: "hci0"), options: options)
            try await body(transport, address)
            peripheral.stop()
            try await serving.value
        }
    }

    @Test(
        "an address nobody advertises is not found (deviceNotFound, naming it); the bootloader's connection reports the MTU it negotiated and its DFU characteristics, and a request is answered by a notification"
    )
    func connectAndRequest() async throws {
        var options = BlueZGATTTransport.Options()
        options.firstSearchTimeout = .seconds(3)
        options.connectionAttempts = 1
        try await Self.withBootloader(mtu: 185, options: options) { transport, address in
            let absent = try BluetoothAddress(parsing: "C0:DE:00:00:00:99")
            await #expect {
                _ = try await transport.connect(ConnectionRequest(address: absent), deadline: .now + .seconds(5))
            } throws: { error in
                guard let error = error as? LinkError else { return false }
                return error.kind == .deviceNotFound && error.cause.contains("C0:DE:00:00:00:99")
            }

            let connection = try await transport.connect(
                ConnectionRequest(address: address), deadline: .now + rigConnectionTimeout)
            // 185 offered; the bootloader answers with a payload of whole words (nrf_dfu_ble.c): 180 + 3.
            #expect(connection.mtu == 183)
            #expect(connection.address == address)
            #expect(connection.characteristics.isSuperset(of: [.secureControlPoint, .securePacket]))
            try await transport.enableNotifications(.secureControlPoint)
            try await transport.write(.secureControlPoint, [0x06, 0x01])  // Select command object
            var answer: [UInt8]?
            while answer == nil, let event = try await transport.nextEvent(until: .now + .seconds(30)) {
                if case .notification(.secureControlPoint, let value) = event { answer = value }
            }
            #expect(answer?.starts(with: [0x60, 0x06, 0x01]) == true)
            await transport.disconnect()
        }
    }
}

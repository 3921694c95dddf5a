import BlueZ
import BlueZTransport
import DFUController
import DFUPackage
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import SimulatedPeripheral
import Synchronization
import TestSupport
import Testing

/// The GATT server side on the bluezoo rig (testrig.md, rung 1): the peripheral serves a simulated Secure DFU
/// bootloader on hci1, and BlueZTransport's central updates it from hci0, all in this process.
@Suite(
    "SimulatedPeripheral on the BlueZ rig", .tags(.integration),
    .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct SimulatedPeripheralTests {
    /// Everything the peripheral reported, in order.
    final class Events: Sendable {
        private let list = Mutex<[SimulatedPeripheralEvent]>([])

        func append(_ event: SimulatedPeripheralEvent) { list.withLock { $0.append(event) } }

        var all: [SimulatedPeripheralEvent] { list.withLock { $0 } }

        /// The first event `pick` accepts, waiting up to two minutes for it (see ``rigWait``).
        func first<T>(_ pick: @escaping (SimulatedPeripheralEvent) -> T?) async throws -> T? {
            try await eventually(within: rigWait) { self.all.lazy.compactMap(pick).first }
        }
    }

    static let image: [UInt8] = {
        var random = SeededGenerator(seed: 21)
        return (0..<6000).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    static func firmware() throws -> DFUFirmware {
        let command = InitCommand(
            fwVersion: 1, hwVersion: 52, sdReq: [0x101], type: .application, sdSize: 0, blSize: 0,
            appSize: UInt32(image.count), hash: InitCommand.Hash(sha256Of: image), isDebug: false)
        return try DFUFirmware(parts: [
            try DFUFirmware.Part(
                imageType: .application, initPacket: SecureInitPacket(initCommand: command).encoded(), image: image)
        ])
    }

    @Test(
        "a Secure bootloader registers on its adapter with the DFU service; a central updates it through the AcquireWrite socket it offers, and it activates"
    )
    func servesADFU() async throws {
        try await BlueZRig.with { rig in
            let server = try await BlueZClient.connect(.address(rig.bus.address))
            defer { server.connection.close() }
            var bootloader = SecureBootloaderOptions()
            bootloader.softDeviceFWID = 0x101
            bootloader.hardwareVersion = 52
            let peripheral = SimulatedPeripheral(
                client: server, adapter: try await server.adapter(named: "hci1"),
                device: SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(bootloader))),
                options: SimulatedPeripheralOptions(offersAcquireWrite: true))
            let events = Events()
            let serving = Task { try await peripheral.run { events.append($0) } }
            defer { peripheral.stop() }

            let registration = try #require(
                try await events.first { event -> PeripheralRegistration? in
                    if case .registered(let registration) = event { registration } else { nil }
                }, "not registered; rig log:\n\(rig.log)")
            #expect(registration.adapter.interfaceName == "hci1")
            #expect(registration.serviceUUIDs == ["0000FE59-0000-1000-8000-00805F9B34FB"])
            #expect(registration.roles.contains(.secureControlPoint) && registration.roles.contains(.securePacket))
            let address = try #require(registration.adapter.address)

            let central = try await BlueZClient.connect(.address(rig.bus.address))
            defer { central.connection.close() }
            let transport = try await BlueZGATTTransport.open(
                client: central, adapter: try await central.adapter(named: "hci0"))
            var configuration = DFUConfiguration()
            configuration.objectPreparationDelay = .zero
            configuration.connectionTimeout = rigConnectionTimeout
            let controller = DFUController(firmware: try Self.firmware(), target: address, configuration: configuration)
            let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { _ in }
            guard case .completed = outcome else {
                Issue.record("the update failed: \(outcome); rig log:\n\(rig.log)")
                return
            }
            #expect(transport.paths.acquiredWrite)

            let activated = try await events.first { event -> [UInt8]? in
                if case .activated(let parts) = event { parts[.application] } else { nil }
            }
            #expect(activated == Self.image)
            let all = events.all
            #expect(all.contains { if case .connected(_, let mtu) = $0 { mtu == 247 } else { false } })
            #expect(all.contains(.written(.secureControlPoint, [0x06, 0x01])))  // Select command object

            peripheral.stop()
            try await serving.value
        }
    }
}

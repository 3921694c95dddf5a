import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSimulator
import Testing

/// What a program sees of BluetoothDeviceSimulator before anything reaches BlueZ: only public API.
///
/// Serving over a bus is `nrfloader simulate`'s, in BlueZTransportTests' SimulateTests on the bluezoo rig.
@Suite("BluetoothDeviceSimulator, as a program uses it")
struct BluetoothDeviceSimulatorTests {
    @Test(
        "options the device does not take are usage errors, before the bus is touched",
        arguments: [(SimulatedDeviceKind.secure, 22, 1), (.smp, 518, 1), (.buttonless, 247, 0)]
            as [(SimulatedDeviceKind, Int, Int)])
    func refusedOptions(kind: SimulatedDeviceKind, mtu: Int, limit: Int) async throws {
        var options = BluetoothDeviceSimulator.Options()
        options.mtu = mtu
        let simulator = BluetoothDeviceSimulator(serving: SimulatedDeviceProfile(kind), options: options)
        let error = await #expect(throws: UpdateError.self) {
            try await simulator.run(stoppingAfterActivations: limit) { _ in }
        }
        #expect(error?.exitStatus == .usage)
    }

    @Test("an SMP fault the device cannot simulate is a usage error naming it")
    func unsupportedSMPFault() async throws {
        var device = SimulatedDeviceProfile(.smp)
        device.faults = ["corrupt-packet@1"]
        let error = await #expect(throws: UpdateError.self) {
            try await BluetoothDeviceSimulator(serving: device).run { _ in }
        }
        #expect(error?.exitStatus == .usage)
        #expect(error?.message.contains("corrupt-packet@1") == true)
    }

    @Test("a simulator stopped before it runs registers nothing and reports nothing")
    func stoppedBeforeRunning() async throws {
        let simulator = BluetoothDeviceSimulator(serving: SimulatedDeviceProfile(.secure))
        simulator.stop()
        let report = try await simulator.run { _ in Issue.record("no event expected") }
        #expect(report.activations == 0)
        #expect(report.images.isEmpty)
        #expect(report.smpUpload == nil)
    }
}

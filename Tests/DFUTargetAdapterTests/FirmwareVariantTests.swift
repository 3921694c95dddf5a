import DFUController
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import FirmwareInput
import Testing

/// A generated input's two init packet variants, through the adapter: each bootloader gets its own protocol's.
@Suite struct FirmwareVariantTests {
    static let image = randomImage(size: 2048, seed: 5)

    @Test("the controller sends the legacy variant to a legacy bootloader and the Secure one to a Secure bootloader")
    func controllerPicks() async throws {
        var options = FirmwareInput.GenerationOptions()
        options.softdeviceRequired = [0x0101, 0xFFFE]  // the Secure bootloader's S132, and any for the legacy one
        let input = try FirmwareInput(binary: Self.image, name: "app.bin", options: options)
        for target in ScenarioTarget.allCases {
            let device = target.device(faults: FaultPlan())
            let transport = SimulatedTransport(device: device, link: LinkModel())
            let advertised = try #require(device.advertisement).address
            let controller = DFUController(
                firmware: input.firmware, target: try BluetoothAddress(parsing: advertised.description))
            let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { _ in }
            guard case .completed = outcome else {
                Issue.record("\(target): \(outcome)")
                continue
            }
            #expect(transport.device.activatedImage(.application) == Self.image, "\(target)")
        }
    }
}

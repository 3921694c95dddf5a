import DFUController
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import NRFLoaderKit
import Testing

/// A generated input's two init packet variants, through the adapter: each bootloader gets its own protocol's.
@Suite struct FirmwareVariantTests {
    static let image = randomImage(size: 2048, seed: 5)

    @Test("the controller sends the legacy variant to a legacy bootloader and the Secure one to a Secure bootloader")
    func controllerPicks() async throws {
        var options = FirmwareOptions()
        options.softDeviceRequirements = [0x0101, 0xFFFE]  // the Secure bootloader's S132, and any for the legacy one
        let firmware = try Firmware(bytes: Self.image, name: "app.bin", options: options)
            .dfuFirmware(defaultProtocol: nil)
        for target in ScenarioTarget.allCases {
            let device = target.device(faults: FaultPlan())
            let transport = SimulatedTransport(device: device, link: LinkModel())
            let advertised = try #require(device.advertisement).address
            let controller = DFUController(
                firmware: firmware, target: try BluetoothAddress(parsing: advertised.description))
            let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { _ in }
            guard case .completed = outcome else {
                Issue.record("\(target): \(outcome)")
                continue
            }
            #expect(transport.device.activatedImage(.application) == Self.image, "\(target)")
        }
    }
}

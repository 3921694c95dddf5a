import NRFLoaderKit
import NRFLoaderSimulator

// The LED blinky for the nRF52 DK, from the catalog embedded in the library.
let firmware = try Firmware("blinky-pca10040")

// A Secure DFU bootloader, simulated in this process, as fast as it can go.
var options = SimulatedDeviceOptions()
options.speed = 0
let device = try SimulatedTarget(.secure, options: options)

let update = FirmwareUpdate(firmware: firmware, target: device.target)
let summary = try await update.run { event in
    if case .phase(let progress) = event {
        print("part \(progress.part)/\(progress.parts): \(progress.phase)")
    }
}
print("confirmed by the device: \(summary.bytesConfirmed) bytes")

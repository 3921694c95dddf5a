import ArgumentParser
import BlueZ
import BlueZTransport
import DBus
import DFUSimulator
import DeviceLink
import MCUbootImage
import NRFLoaderKit
import NRFLoaderSimulator
import SMPSimulator
import SimulatedPeripheral

extension SimulateCommand {
    /// The options `--kind smp` takes; the DFU-only ones are refused rather than ignored.
    func validateSMP() throws {
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        guard (1...16).contains(smpImages) else { throw ValidationError("--smp-images must be 1 to 16") }
        let dfuOnly: [(String, Bool)] = [
            ("--key", key != nil), ("--sd-id", softDevice != nil), ("--flash nrf51", flash == .nrf51),
        ]
        if let (option, _) = dfuOnly.first(where: \.1) {
            throw ValidationError("\(option) does not apply to --kind smp")
        }
        for text in simFault {
            guard SimulatedSMPTransport.unsupportedReason(try FaultSpecification.parse(text)) != nil else { continue }
            throw ValidationError(
                "--sim-fault '\(text)' is not simulated for --kind smp (supported: drop-packet, drop-notification, "
                    + "duplicate-notification, disconnect, reboot, stall, respond, mtu)")
        }
    }

    /// `--kind smp`: a Zephyr application with MCUmgr's SMP service on MCUboot, served through BlueZ.
    func runSMP() async throws {
        if let saveImages { try SimulatorOptions.makeImageDirectory(saveImages) }
        var configuration = SimulatedSMPDevice.Configuration(slotSize: smpSlotSize)
        configuration.imageCount = smpImages
        if let params = simSmpParams {
            configuration.answersParameters = true
            configuration.parameters = params.parameters
        }
        // The application it runs before any update: 0.0.1, as simulate-serial's and sim:smp's.
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        var options = SMPPeripheralOptions()
        if let name { options.name = name }
        options.mtu = mtu
        options.offersAcquireNotify = !noAcquire
        options.offersAcquireWrite = acquireWrite && !noAcquire
        options.takesSwapTime = flash != .instant
        options.faults = try SimulatorSetup.faultPlan(simFault, seed: simSeed)
        let client = try await BlueZClient.connect()
        let chosen = try await client.adapter(named: adapter)
        let peripheral = SimulatedSMPPeripheral(
            client: client, adapter: chosen,
            device: SimulatedSMPDevice(configuration: configuration, running: running), options: options)
        let renderer = SMPSimulateRenderer(
            json: outputOptions.json, quiet: outputOptions.quiet, imageDirectory: saveImages, exitAfter: exitAfter,
            stop: { peripheral.stop() })
        Interrupts.onFirstInterrupt { peripheral.stop() }
        try await peripheral.run { renderer.handle($0) }
        if let device = peripheral.device {
            renderer.save(SMPSlots(device.slots))
        }
        if let failure = renderer.failure { throw failure }
        renderer.finish(tally: peripheral.tally ?? SMPUploadTally())
    }
}

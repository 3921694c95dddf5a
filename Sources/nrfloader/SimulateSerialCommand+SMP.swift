import ArgumentParser
import MCUbootImage
import NRFLoaderKit
import NRFLoaderSimulator
import SMPSimulator
import SerialSimulator

extension SimulateSerialCommand {
    /// The options `--protocol smp` takes; the DFU-only ones are refused rather than ignored.
    func validateSMP() throws {
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        guard (1...16).contains(smpImages) else { throw ValidationError("--smp-images must be 1 to 16") }
        if let smpLineBuffers, !(1...64).contains(smpLineBuffers) {
            throw ValidationError("--smp-line-buffers must be 1 to 64")
        }
        let dfuOnly: [(String, Bool)] = [
            ("--key", key != nil), ("--sd-id", softDevice != nil), ("--serial-fault", !serialFault.isEmpty),
            ("--sim-fault", !simFault.isEmpty),
        ]
        if let (option, _) = dfuOnly.first(where: \.1) {
            throw ValidationError("\(option) does not apply to --protocol smp")
        }
    }

    /// `--protocol smp`: a Zephyr application on MCUboot behind the SMP console transport, on a pseudo-terminal.
    func serveSMP() throws {
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        var configuration = SimulatedSMPDevice.Configuration(slotSize: smpSlotSize)
        configuration.imageCount = smpImages
        configuration.misbehaviour = smpMisbehave
        let device = SimulatedSMPDevice(configuration: configuration, running: running)
        // With --sysfs, a USB CDC ACM console (Zephyr's USB vendor id 0x2fe3, its CDC ACM sample's product id); with
        // --reenumerate its port goes away after each boot that activated an image, as a USB device that resets.
        let usb = sysfs.map { root in
            SimulatedUSBDevice(
                sysfsRoot: root, vendorID: 0x2FE3, productID: 0x0001, product: "Zephyr CDC ACM (simulated)",
                serialNumber: usbSerial)
        }
        let terminal = try PseudoTerminalBootloader(
            bootloader: SMPConsoleDevice(device: device, lineBuffers: smpLineBuffers), linkPath: port,
            paceBaudRate: paceBaud, usb: usb,
            reenumeration: reenumerate.map {
                SerialReenumeration(
                    naming: $0.naming, serialNumberAfterReset: reenumerateSerial,
                    delay: .milliseconds(reenumerateDelay))
            })
        Console.result("ready \(port) -> \(terminal.slavePath)")
        let stop = StopFlag()
        Interrupts.onFirstInterrupt { stop.raise() }
        _ = try terminal.run { state in
            stop.isRaised || exitAfter.map { state.activations >= $0 } ?? false
        }
        let state = terminal.state
        if let directory = saveImages {
            try SimulatorSetup.makeImageDirectory(directory)
            try SimulatorOptions.parse(["--sim-save-images", directory]).save(SimulatedTarget.images(of: state.device))
        }
        if let transcript {
            let output = try OutputFile(path: transcript)
            try output.write(Array(state.transcript.map { $0 + "\n" }.joined().utf8))
            try output.commit()
        }
        Console.note("simulate-serial: \(state.activations) activation(s)")
    }
}

extension SMPMisbehaviour: ExpressibleByArgument {}

import ArgumentParser
import MCUbootImage
import SMPSimulator
import SerialSimulator

extension SimulateSerialCommand {
    /// The options `--protocol smp` takes; the DFU-only ones are refused rather than ignored.
    func validateSMP() throws {
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        let dfuOnly: [(String, Bool)] = [
            ("--key", key != nil), ("--sd-id", softDevice != nil), ("--serial-fault", !serialFault.isEmpty),
            ("--sysfs", sysfs != nil), ("--reenumerate", reenumerate != nil), ("--sim-fault", !simFault.isEmpty),
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
        let device = SimulatedSMPDevice(
            configuration: SimulatedSMPDevice.Configuration(slotSize: smpSlotSize), running: running)
        let terminal = try PseudoTerminalBootloader(
            bootloader: SMPConsoleDevice(device: device), linkPath: port, paceBaudRate: paceBaud)
        Console.result("ready \(port) -> \(terminal.slavePath)")
        let stop = StopFlag()
        Interrupts.onFirstInterrupt { stop.raise() }
        _ = try terminal.run { state in
            stop.isRaised || exitAfter.map { state.activations >= $0 } ?? false
        }
        let state = terminal.state
        if let directory = saveImages {
            try SimulatorOptions.makeImageDirectory(directory)
            for (name, bytes) in [("slot0", state.device.primary), ("slot1", state.device.secondary)] {
                let output = try OutputFile(path: directory + "/" + name + ".bin")
                try output.write(bytes)
                try output.commit()
            }
        }
        if let transcript {
            let output = try OutputFile(path: transcript)
            try output.write(Array(state.transcript.map { $0 + "\n" }.joined().utf8))
            try output.commit()
        }
        Console.note("simulate-serial: \(state.activations) activation(s)")
    }
}

import ArgumentParser
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator

/// `nrfloader simulate-serial`: a simulated Secure DFU bootloader behind the SDK 15 serial transport, or a legacy
/// one behind the SDK 11 three-wire UART transport, served on a pseudo-terminal so that any uploader (this one,
/// nrfutil, adafruit-nrfutil) can open it as a serial port.
struct SimulateSerialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-serial",
        abstract: "Serve a simulated serial DFU bootloader (Secure or legacy) on a pseudo-terminal.",
        discussion: """
            Creates a pseudo-terminal, links PATH to it, prints 'ready PATH -> /dev/pts/N' on standard output and \
            answers SLIP-framed Secure DFU requests as an SDK 15 UART bootloader (ping, get MTU, select, create, \
            write object, checksum, execute), or with --protocol legacy the HCI packets (start, init, data, stop) of \
            an SDK 11 or Adafruit bootloader. With --protocol smp it is a Zephyr application on MCUboot behind the SMP \
            console transport (base64 lines, 06 09 / 04 14 markers, CRC-16/XMODEM): image state, upload, test, \
            confirm, reset with MCUboot's swap, echo; an activation is a boot that swapped a new image in \
            (--save-images writes slot0.bin and slot1.bin). Stops after --exit-after activations, or on SIGTERM/Ctrl-C.

            As a USB device: --sysfs DIR describes it in a sysfs tree (DIR/class/tty/NAME, NAME being --port's \
            file name; 1915:521F for secure, 239A:0029 for legacy, 2FE3:0001 (Zephyr CDC ACM) for smp, serial number \
            --usb-serial), which \
            'NRFLOADER_SYSFS=DIR NRFLOADER_DEV=<folder of --port> nrfloader scan --serial' lists and upload --port \
            uses to find the device again by serial number. --reenumerate same|next makes the port disappear after \
            every activation (after --reenumerate-delay, deaf meanwhile) and come back 0.3 s later on a new pseudo-terminal, under the same name or the next \
            number (ttyACM0, then ttyACM1), as a USB CDC bootloader does when it resets between the parts of an \
            update; --reenumerate-serial S makes it come back with another serial number (another board).
            """
    )

    @Option(help: "The symlink to create to the pseudo-terminal, e.g. /tmp/ttyDFU.")
    var port: String

    @Option(
        help: ArgumentHelp(
            "secure (SDK 15 serial transport), legacy (SDK 11 / Adafruit HCI transport), or smp (a Zephyr "
                + "application on MCUboot behind the SMP console transport)."))
    var `protocol`: SerialSimulationProtocol = .secure

    @Option(help: "smp: the size of each of the two image slots in bytes (a padded image must match it).")
    var smpSlotSize: Int = 0x4_0000

    @Option(
        help: ArgumentHelp(
            "smp: how many images the device updates: 2 for an nRF5340 (image 0 the application core in slots 0/1, "
                + "image 1 the network core in slots 2/3); --save-images then writes slot0.bin to slot3.bin."))
    var smpImages: Int = 1

    @Option(
        help: ArgumentHelp(
            "smp: model N RX line buffers of Zephyr's console transport (CONFIG_UART_MCUMGR_RX_BUF_COUNT, "
                + "CONFIG_MCUMGR_TRANSPORT_SHELL_RX_BUF_COUNT; both 2 by default): an SMP line that arrives while N "
                + "lines wait to be decoded is dropped, and lines are decoded once the input has been quiet for "
                + "20 ms (default: no limit).",
            valueName: "n"))
    var smpLineBuffers: Int?

    @Option(
        help: ArgumentHelp(
            "smp: misbehave on purpose after a correct start, to test a host: "
                + SMPMisbehaviour.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ") + ".",
            valueName: "kind"))
    var smpMisbehave: SMPMisbehaviourArgument?

    @Flag(
        help: ArgumentHelp(
            "smp: start in MCUboot's serial recovery: uploads go to the primary slot, no state writes, requests of at "
                + "most 1024 bytes; a reset boots the new image."))
    var smpRecovery = false

    @Option(
        help: ArgumentHelp(
            "smp: the MCUboot mode the device reports to bootloader info and boots by: swap-using-scratch, "
                + "overwrite-only, swap-using-move, direct-xip, ram-load (default: swap-using-scratch).",
            valueName: "mode"))
    var smpBootloaderMode: BootloaderModeArgument?

    @Option(help: "The Get MTU answer (the SLIP buffer size): 131 as the SDK's UART transport, at most 491.")
    var mtu: Int = 131

    @Option(help: "The hardware version the bootloader accepts.")
    var hwVersion: UInt32 = 52

    @Option(name: .customLong("sd-id"), help: "The installed SoftDevice's firmware id (default 0xA8).")
    var softDevice: AddressArgument?

    @Option(help: "Check init packet signatures with this key's public part (default: no check).")
    var key: String?

    @Option(help: "Flash timing: nrf52 or instant (default).")
    var flash: FlashModel = .instant

    @Option(help: "Read no faster than this line rate, 10 bits a byte, as a UART would deliver (default: unpaced).")
    var paceBaud: Int?

    @Option(help: "Exit after this many activations.")
    var exitAfter: Int?

    @Option(help: "Write every frame, '> hex' from the host and '< hex' to it, to this file when the simulator stops.")
    var transcript: String?

    @Option(
        help: """
            A line fault: mute (never answer), garbage (secure: noise before each response), vanish@N (the port \
            disappears at data frame N), drop-ack@N (legacy: no acknowledgement for packet N, once).
            """)
    var serialFault: [String] = []

    @Option(help: "Inject a fault into the simulated device (repeatable), e.g. drop-packet@40.")
    var simFault: [String] = []

    @Option(help: "When it stops, write each image the device activated to DIR (application.bin, softdevice.bin, …).")
    var saveImages: String?

    @Option(help: "Describe the device as a USB device in a sysfs tree at DIR (see above).")
    var sysfs: String?

    @Option(help: "Its USB serial number in that tree.")
    var usbSerial = "C0DE00000001"

    @Option(help: "After every activation the port disappears and comes back: same (name) or next (number).")
    var reenumerate: ReenumerationArgument?

    @Option(help: "The USB serial number it comes back with (default: its own; another one plays another board).")
    var reenumerateSerial: String?

    @Option(help: "Milliseconds from the activation to the port's disappearance, deaf meanwhile.")
    var reenumerateDelay = 100

    func validate() throws {
        guard (11...491).contains(mtu) else { throw ValidationError("--mtu must be 11 to 491") }
        if reenumerateSerial != nil, reenumerate == nil || sysfs == nil {
            throw ValidationError("--reenumerate-serial needs --reenumerate and --sysfs")
        }
        if reenumerateDelay < 0 { throw ValidationError("--reenumerate-delay must be 0 or more") }
        if let exitAfter, exitAfter < 1 { throw ValidationError("--exit-after must be at least 1") }
        if let paceBaud, paceBaud < 100 { throw ValidationError("--pace-baud must be at least 100") }
        if `protocol` == .smp {
            try validateSMP()
        } else if smpMisbehave != nil {
            throw ValidationError("--smp-misbehave needs --protocol smp")
        } else if smpRecovery {
            throw ValidationError("--smp-recovery needs --protocol smp")
        } else if smpBootloaderMode != nil {
            throw ValidationError("--smp-bootloader-mode needs --protocol smp")
        }
        _ = try lineFaults()
    }

    private func lineFaults() throws -> SerialDeviceSimulator.LineFaults {
        var faults = SerialDeviceSimulator.LineFaults()
        func count(_ text: String, after prefix: String) throws -> Int {
            guard let count = Int(text.dropFirst(prefix.count)), count > 0 else {
                throw ValidationError("--serial-fault '\(text)': \(prefix)N needs a positive N")
            }
            return count
        }
        for text in serialFault {
            switch text {
            case "mute": faults.isMute = true
            case "garbage": faults.sendsGarbage = true
            case let text where text.hasPrefix("vanish@"):
                faults.vanishesAtDataFrame = try count(text, after: "vanish@")
            case let text where text.hasPrefix("drop-ack@"):
                faults.droppedAcknowledgements.insert(try count(text, after: "drop-ack@"))
            default:
                throw ValidationError("--serial-fault '\(text)': unknown (valid: mute, garbage, vanish@N, drop-ack@N)")
            }
        }
        return faults
    }

    /// The simulator the options describe.
    private func simulator() throws -> SerialDeviceSimulator {
        var device = SimulatedDeviceProfile(`protocol`.kind)
        device.hardwareVersion = hwVersion
        device.softDeviceID = softDevice.map { UInt32($0.value) }
        device.signatureKeyFile = key
        device.flash = flash.simulated
        device.faults = simFault
        device.smpSlotSize = smpSlotSize
        device.smpImageCount = smpImages
        device.smpMisbehaviour = smpMisbehave?.misbehaviour
        device.smpSerialRecovery = smpRecovery
        device.smpBootloaderMode = smpBootloaderMode?.number
        var simulator = SerialDeviceSimulator(serving: device, at: port)
        simulator.mtu = mtu
        simulator.paceBaudRate = paceBaud
        simulator.lineFaults = try lineFaults()
        simulator.smpLineBuffers = smpLineBuffers
        simulator.usb = sysfs.map { SerialDeviceSimulator.USBDevice(sysfsRoot: $0, serialNumber: usbSerial) }
        simulator.reenumeration = reenumerate.map {
            SerialDeviceSimulator.Reenumeration(
                naming: $0.naming, serialNumberAfterReset: reenumerateSerial, delay: .milliseconds(reenumerateDelay))
        }
        return simulator
    }

    func run() async throws {
        let simulator = try simulator()
        let images = try saveImages.map { try SimulatorOptions.parse(["--sim-save-images", $0]) }
        // An nRF5 bootloader's folder is made before it is served, an SMP device's when it stops.
        if `protocol` != .smp { try images?.checkImageDirectory() }
        let port = port
        let exitAfter = exitAfter
        let task = Task {
            try await simulator.run(stoppingAfterActivations: exitAfter) { Console.result("ready \(port) -> \($0)") }
        }
        Interrupts.onFirstInterrupt { task.cancel() }
        let report = try await task.value
        if `protocol` == .smp { try images?.checkImageDirectory() }
        try images?.save(report.images)
        if let transcript {
            var lines = report.transcript
            if `protocol` != .smp, let span = report.firstByteToLastActivation {
                let milliseconds = span.components.seconds * 1000 + span.components.attoseconds / 1_000_000_000_000_000
                lines.append(
                    "# timing: \(report.hostWireBytes) host wire bytes, \(milliseconds) ms from first byte to last "
                        + "activation")
            }
            let output = try OutputFile(path: transcript)
            try output.write(Array(lines.map { $0 + "\n" }.joined().utf8))
            try output.commit()
        }
        let vanished = report.portVanished ? ", port vanished (fault)" : ""
        Console.note("simulate-serial: \(report.activations) activation(s)\(vanished)")
    }
}

/// `simulate-serial --protocol`.
enum SerialSimulationProtocol: String, ExpressibleByArgument, CaseIterable {
    case secure
    case legacy
    case smp

    /// The device it serves.
    var kind: SimulatedDeviceKind {
        switch self {
        case .secure: .secure
        case .legacy: .legacy
        case .smp: .smp
        }
    }
}

/// `--reenumerate same|next`.
enum ReenumerationArgument: String, ExpressibleByArgument, CaseIterable {
    case same
    case next

    var naming: SerialDeviceSimulator.Reenumeration.Naming { self == .same ? .same : .next }
}

/// `--smp-bootloader-mode`: MCUboot's modes by name, as `enum mcuboot_mode` numbers them.
enum BootloaderModeArgument: String, ExpressibleByArgument, CaseIterable {
    case swapUsingScratch = "swap-using-scratch"
    case overwriteOnly = "overwrite-only"
    case swapUsingMove = "swap-using-move"
    case directXIP = "direct-xip"
    case ramLoad = "ram-load"

    /// `enum mcuboot_mode`'s value.
    var number: Int {
        switch self {
        case .swapUsingScratch: 1
        case .overwriteOnly: 2
        case .swapUsingMove: 3
        case .directXIP: 4
        case .ramLoad: 6
        }
    }
}

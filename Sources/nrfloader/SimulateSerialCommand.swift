import ArgumentParser
import DFUSimulator
import NRFLoaderKit
import NRFLoaderSimulator
import SMPSimulator
import SerialSimulator
import Synchronization

/// `nrfloader simulate-serial`: a simulated Secure DFU bootloader behind the SDK 15 serial transport, or a legacy
/// one behind the SDK 11 three-wire UART transport, served on a pseudo-terminal so that any uploader (this one,
/// nrfutil, adafruit-nrfutil) can open it as a serial port.
struct SimulateSerialCommand: ParsableCommand {
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
    var smpMisbehave: SMPMisbehaviour?

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
        }
        _ = try lineFaults()
    }

    private func lineFaults() throws -> (secure: SerialBootloader.LineFaults, legacy: LegacySerialBootloader.LineFaults)
    {
        var secure = SerialBootloader.LineFaults()
        var legacy = LegacySerialBootloader.LineFaults()
        func count(_ text: String, after prefix: String) throws -> Int {
            guard let count = Int(text.dropFirst(prefix.count)), count > 0 else {
                throw ValidationError("--serial-fault '\(text)': \(prefix)N needs a positive N")
            }
            return count
        }
        for text in serialFault {
            switch text {
            case "mute":
                secure.isMute = true
                legacy.isMute = true
            case "garbage": secure.sendsGarbage = true
            case let text where text.hasPrefix("vanish@"):
                secure.vanishAfterWrites = try count(text, after: "vanish@")
                legacy.vanishAfterData = secure.vanishAfterWrites
            case let text where text.hasPrefix("drop-ack@"):
                legacy.droppedAcknowledgements.insert(try count(text, after: "drop-ack@"))
            default:
                throw ValidationError("--serial-fault '\(text)': unknown (valid: mute, garbage, vanish@N, drop-ack@N)")
            }
        }
        return (secure, legacy)
    }

    func run() throws {
        let faults = try lineFaults()
        let plan = try SimulatorSetup.faultPlan(simFault, seed: 0)
        switch `protocol` {
        case .secure:
            var secure = SecureBootloaderOptions()
            secure.hardwareVersion = hwVersion
            if let softDevice { secure.softDeviceFWID = UInt32(softDevice.value) }
            if let key { secure.signature = try .verified(keyFile: key) }
            var configuration = SimulatorSetup.configuration(
                .secure, secure: secure, legacySoftDevice: nil, faults: plan)
            configuration.flash = flash.timing(pageSize: configuration.flash.pageSize)
            try serve(
                SerialBootloader(device: SimulatedDevice(configuration: configuration), mtu: mtu, faults: faults.secure)
            )
        case .smp:
            try serveSMP()
        case .legacy:
            var configuration = SimulatorSetup.configuration(
                .legacy, secure: SecureBootloaderOptions(), legacySoftDevice: softDevice.map { UInt16($0.value) },
                faults: plan)
            configuration.flash = flash.timing(pageSize: configuration.flash.pageSize)
            try serve(
                LegacySerialBootloader(device: SimulatedDevice(configuration: configuration), faults: faults.legacy))
        }
    }

    private func serve<Model: SerialBootloaderModel>(_ bootloader: Model) throws {
        let images = try saveImages.map { try SimulatorOptions.parse(["--sim-save-images", $0]) }
        try images?.checkImageDirectory()
        let usb = sysfs.map { root in
            `protocol` != .legacy
                ? SimulatedUSBDevice(
                    sysfsRoot: root, vendorID: 0x1915, productID: 0x521F, product: "Open DFU Bootloader (simulated)",
                    serialNumber: usbSerial)
                : SimulatedUSBDevice(
                    sysfsRoot: root, vendorID: 0x239A, productID: 0x0029, product: "nRF52 Bootloader (simulated)",
                    serialNumber: usbSerial)
        }
        let terminal = try PseudoTerminalBootloader(
            bootloader: bootloader, linkPath: port, paceBaudRate: paceBaud, usb: usb,
            reenumeration: reenumerate.map {
                SerialReenumeration(
                    naming: $0.naming, serialNumberAfterReset: reenumerateSerial,
                    delay: .milliseconds(reenumerateDelay))
            })
        Console.result("ready \(port) -> \(terminal.slavePath)")
        let stop = StopFlag()
        Interrupts.onFirstInterrupt { stop.raise() }
        let vanished = try terminal.run { state in
            stop.isRaised || exitAfter.map { state.activations >= $0 } ?? false
        }
        try images?.save(SimulatedTarget.images(of: terminal.state.device))
        if let transcript {
            let state = terminal.state
            var lines = state.transcript
            if let first = state.firstFrameTime, let last = state.lastActivationTime {
                lines.append(
                    "# timing: \(state.hostBytes) host wire bytes, \((last - first).milliseconds) ms from first byte to last activation"
                )
            }
            let output = try OutputFile(path: transcript)
            try output.write(Array(lines.map { $0 + "\n" }.joined().utf8))
            try output.commit()
        }
        Console.note(
            "simulate-serial: \(terminal.state.activations) activation(s)\(vanished ? ", port vanished (fault)" : "")")
    }
}

/// `simulate-serial --protocol`.
enum SerialSimulationProtocol: String, ExpressibleByArgument, CaseIterable {
    case secure
    case legacy
    case smp
}

/// `--reenumerate same|next`.
enum ReenumerationArgument: String, ExpressibleByArgument, CaseIterable {
    case same
    case next

    var naming: SerialReenumeration.Naming { self == .same ? .same : .next }
}

/// Set once from the interrupt thread, read by the serving loop.
final class StopFlag: Sendable {
    private let raised = Mutex(false)
    var isRaised: Bool { raised.withLock { $0 } }
    func raise() { raised.withLock { $0 = true } }
}

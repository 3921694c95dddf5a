import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSimulator

/// `nrfloader simulate`: a simulated Nordic DFU target served through BlueZ, for a central to update.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract:
            "Play a Nordic DFU or SMP (MCUmgr) target over BlueZ: a simulated device a central can update.",
        discussion: """
            Registers the simulated device's GATT services and advertisement on the adapter and serves it until \
            Ctrl-C (or --exit-after). stdout gets one line when it is ready and one per activation or reboot \
            ('ready: …', 'activated: …', 'advertising: …'), or JSON Lines with --json; stderr gets the device's \
            log. A bootloader that wants address + 1 moves to an adapter with that address if there is one. \
            --kind smp plays a Zephyr application with MCUmgr's SMP service on MCUboot (two slots, swap on reset): \
            --save-images writes its slots (slot0.bin, slot1.bin) after every disconnection, boot and at exit, \
            --exit-after N exits once the central that came back after the Nth activation has left.
            """
    )

    @Option(help: "The adapter to advertise on, e.g. hci1 (default: the first powered adapter).")
    var adapter: String?

    @Option(
        help: """
            The device to play; buttonless is an application with Secure buttonless DFU, smp a Zephyr application \
            on MCUboot with the SMP service.
            """)
    var kind: SimulateKind = .secure

    @Option(
        help: """
            The advertised name of the mode it starts in (default DfuTarg, Nordic_App for buttonless, Zephyr for \
            smp).
            """)
    var name: String?

    @Option(help: "The ATT MTU a central is taken to request (23-517).")
    var mtu: Int = 247

    @Flag(help: "Refuse AcquireWrite/AcquireNotify, so a central must use WriteValue and StartNotify.")
    var noAcquire = false

    @Flag(
        help: """
            Offer AcquireWrite on the packet characteristic (off by default: bluetoothd 5.66 can deliver the first \
            packet through it late or stale).
            """)
    var acquireWrite = false

    @Option(help: "Secure: the hardware version the bootloader accepts.")
    var hwVersion: UInt32 = 52

    @Option(
        name: .customLong("sd-id"),
        help: ArgumentHelp(
            "The installed SoftDevice's firmware id (default 0x101 secure, as the catalog's nRF52832 images need; "
                + "0x87 legacy)."))
    var softDevice: AddressArgument?

    @Option(
        help: ArgumentHelp(
            "Secure: check init packet signatures with this key's public part (default: no check).", valueName: "pem"))
    var key: String?

    @Option(
        help: ArgumentHelp(
            "Write each activated image into this directory (application.bin, softdevice.bin, bootloader.bin).",
            valueName: "dir"))
    var saveImages: String?

    @Option(
        help: ArgumentHelp(
            "Exit after this many activations, once the device advertises its new firmware.", valueName: "n"))
    var exitAfter: Int?

    @Option(
        help: """
            Flash timing: nrf52 (the Secure default), nrf51 (the legacy default), or instant (smp: nrf52 takes \
            MCUboot's swap time at each boot, instant none).
            """)
    var flash: FlashModel?

    @Option(help: "Inject a fault into the simulated device (repeatable), e.g. disconnect@6000, drop-packet@40.")
    var simFault: [String] = []

    @Option(help: "Seed for random faults (drop-packet~0.01).")
    var simSeed: UInt64 = 0

    @Option(help: "smp: the size of each image slot in bytes (a padded image must match it).")
    var smpSlotSize: Int = 0x4_0000

    @Option(
        help: ArgumentHelp(
            "smp: how many images the device updates, each with two slots (2: an nRF5340's application and network "
                + "cores, images 0 and 1; --save-images writes slot0.bin to slot3.bin)."))
    var smpImages: Int = 1

    @Option(
        help: ArgumentHelp(
            "smp: make the device answer MCUmgr parameters with SIZE,COUNT (e.g. 2475,4); by default it answers "
                + "rc 8, as Zephyr does."))
    var simSmpParams: SimulatedParameters?

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard (23...517).contains(mtu) else { throw ValidationError("--mtu must be 23 to 517") }
        if let exitAfter, exitAfter < 1 { throw ValidationError("--exit-after must be at least 1") }
        if let softDevice, softDevice.value > 0xFFFF { throw ValidationError("--sd-id must be at most 0xFFFF") }
        for text in simFault {
            if let problem = SimulatedDeviceKind.secure.faultProblem(text) {
                throw ValidationError("--sim-fault: \(problem)")
            }
        }
        if kind == .smp {
            try validateSMP()
        } else if smpImages != 1 {
            throw ValidationError("--smp-images applies to --kind smp")
        }
    }

    func run() async throws {
        // Before anything is registered.
        if let saveImages { try SimulatorOptions.makeImageDirectory(saveImages) }
        var serving = BluetoothDeviceSimulator.Options()
        serving.adapter = adapter
        serving.mtu = mtu
        serving.offersAcquire = !noAcquire
        serving.offersAcquireWrite = acquireWrite
        let simulator = BluetoothDeviceSimulator(serving: try device(), options: serving)
        let renderer = SimulateRenderer(
            json: outputOptions.json, quiet: outputOptions.quiet, imageDirectory: saveImages,
            stop: { simulator.stop() })
        Interrupts.onFirstInterrupt { simulator.stop() }
        let report = try await simulator.run(stoppingAfterActivations: exitAfter) { renderer.handle($0) }
        if let failure = renderer.failure { throw failure }
        renderer.finish(report)
    }

    /// The device the options describe.
    private func device() throws -> SimulatedDeviceProfile {
        var device = SimulatedDeviceProfile(kind.kind)
        device.hardwareVersion = hwVersion
        device.softDeviceID = softDevice.map { UInt32($0.value) }
        if kind == .secure || kind == .buttonless {
            device.softDeviceID = device.softDeviceID ?? Self.defaultSecureSoftDevice
        }
        device.signatureKeyFile = key
        device.flash = flash?.simulated
        device.faults = simFault
        device.faultSeed = simSeed
        device.name = name
        device.smpSlotSize = smpSlotSize
        device.smpImageCount = smpImages
        device.smpParameters = simSmpParams.map { ($0.bufferSize, $0.bufferCount) }
        return device
    }

    /// The Secure bootloader's SoftDevice by default: S132 7.2.0 (0x101), which the catalog's nRF52832 images
    /// (`blinky-pca10040`, `selftest-pca10040`) name in their `sd_req`.
    static let defaultSecureSoftDevice: UInt32 = 0x0101
}

/// `simulate --kind`: an nRF5 DFU target or an SMP device.
enum SimulateKind: String, ExpressibleByArgument, CaseIterable {
    case secure
    case buttonless
    case legacy
    case legacyV1 = "legacy-v1"
    case smp

    /// The device it plays.
    var kind: SimulatedDeviceKind {
        switch self {
        case .secure: .secure
        case .buttonless: .buttonless
        case .legacy: .legacy
        case .legacyV1: .legacyV1
        case .smp: .smp
        }
    }
}

/// `simulate --flash`: how long the simulated device's flash takes.
enum FlashModel: String, ExpressibleByArgument, CaseIterable {
    /// nRF52 maxima (85 ms per page erase, 41 µs per word).
    case nrf52
    /// nRF51 (22 ms per 1 KiB page erase, 48 µs per word).
    case nrf51
    /// No flash time at all: the link and the protocol alone (benchmarks).
    case instant

    /// The library's flash timing.
    var simulated: SimulatedFlash {
        switch self {
        case .nrf52: .nrf52
        case .nrf51: .nrf51
        case .instant: .instant
        }
    }
}

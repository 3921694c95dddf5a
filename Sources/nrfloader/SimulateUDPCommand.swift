import ArgumentParser
import NRFLoaderKit
import NRFLoaderSimulator

/// `nrfloader simulate-udp`: simulated Zephyr devices behind MCUmgr's UDP transport, one port each, so that any SMP
/// client (this one, smpmgr, mcumgr) reaches them over the network stack.
struct SimulateUDPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-udp",
        abstract: "Serve simulated Zephyr/MCUboot devices over SMP on UDP ports.",
        discussion: """
            Binds a UDP port per device (--port, --port + 1, ...; 0 for ports the system picks), prints \
            'ready udp:HOST:PORT' for each on standard output, and answers one SMP frame per datagram as a Zephyr \
            application with the MCUmgr UDP transport (smp_udp.c) on MCUboot: image state, upload, test, confirm, \
            reset with MCUboot's swap, echo, and the OS, file system, shell, statistics, settings, enumeration and \
            storage erase groups. After answering reset a device is deaf for 250 ms (CONFIG_MCUMGR_GRP_OS_RESET_MS), \
            then boots. Stops after every device has made --exit-after activations, or on SIGTERM/Ctrl-C.
            """)

    @Option(help: "The local address to serve on: 127.0.0.1, ::1, or another address of this machine.")
    var host = "127.0.0.1"

    @Option(help: "The first device's UDP port; 0 for ports the system picks.")
    var port: Int = 1337

    @Option(help: "How many devices, 1 to 1000, on consecutive ports.")
    var devices = 1

    @Option(help: "The size of each image slot in bytes (a padded image must match it).")
    var smpSlotSize: Int = 0x4_0000

    @Option(help: "How many images each device updates (2: an nRF5340's two cores).")
    var smpImages: Int = 1

    @Option(
        help: ArgumentHelp(
            "Answer MCUmgr parameters with SIZE,COUNT (e.g. 1500,4); by default the devices answer rc 8, as Zephyr "
                + "does without CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS.", valueName: "size,count"))
    var smpParams: SimulatedParameters?

    @Option(
        help: ArgumentHelp(
            "Build the devices without management group N (2 statistics, 3 settings, 8 file system, 9 shell, "
                + "10 enumeration, 63 Zephyr basic): it answers rc 8 (repeatable).", valueName: "n"))
    var withoutGroup: [Int] = []

    @Option(help: "Lose request datagram N (1-based, per device) on the way in, once (repeatable).")
    var drop: [Int] = []

    @Flag(help: "Let each boot take MCUboot's swap time at nRF52 flash timings (seconds for a large image).")
    var swapTime = false

    @Option(help: "Exit once every device has made this many activations.")
    var exitAfter: Int?

    @Option(help: "When it stops, write the first device's slots to DIR (slot0.bin, slot1.bin, ...).")
    var saveImages: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard (1...1000).contains(devices) else { throw ValidationError("--devices must be 1 to 1000") }
        guard port == 0 || port + devices - 1 <= 65535 else {
            throw ValidationError("--port \(port) with --devices \(devices) passes port 65535")
        }
        guard smpSlotSize >= 0x1000 else { throw ValidationError("--smp-slot-size must be at least 4096") }
        guard (1...16).contains(smpImages) else { throw ValidationError("--smp-images must be 1 to 16") }
        if let bad = withoutGroup.first(where: { ![2, 3, 8, 9, 10, 63].contains($0) }) {
            throw ValidationError(
                "--without-group \(bad): give 2, 3, 8, 9, 10 or 63 (OS and image are always built in)")
        }
        if let bad = withoutGroup.first(where: { ![2, 3, 8, 9, 10, 63].contains($0) }) {
            throw ValidationError(
                "--without-group \(bad): give 2, 3, 8, 9, 10 or 63 (OS and image are always built in)")
        }
        if let bad = drop.first(where: { $0 < 1 }) { throw ValidationError("--drop \(bad): give a positive number") }
        if let exitAfter, exitAfter < 1 { throw ValidationError("--exit-after must be at least 1") }
    }

    func run() async throws {
        var device = SimulatedDeviceProfile(.smp)
        device.smpSlotSize = smpSlotSize
        device.smpImageCount = smpImages
        device.smpParameters = smpParams.map { ($0.bufferSize, $0.bufferCount) }
        device.smpGroupsLeftOut = Set(withoutGroup)
        var simulator = UDPDeviceSimulator(serving: device, host: host, port: UInt16(port))
        simulator.count = devices
        simulator.droppedRequests = Set(drop)
        simulator.takesSwapTime = swapTime
        let images = try saveImages.map { try SimulatorOptions.parse(["--sim-save-images", $0]) }
        let exitAfter = exitAfter
        let task = Task {
            try await simulator.run(stoppingAfterActivations: exitAfter) { addresses in
                for address in addresses { Console.result("ready \(address)") }
            }
        }
        Interrupts.onFirstInterrupt { task.cancel() }
        let report = try await task.value
        try images?.checkImageDirectory()
        try images?.save(report.images)
        let activations = report.activations.reduce(0, +)
        Console.note(
            "simulate-udp: \(activations) activation(s) on \(devices) device(s), "
                + "\(report.requests.reduce(0, +)) request datagram(s)")
    }
}

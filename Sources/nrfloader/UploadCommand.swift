import ArgumentParser
import BlueZ
import BlueZTransport
import Catalog
import DBus
import DFUController
import DFUSimulator
import DFUTargetAdapter
import FirmwareInput
import FoundationEssentials

/// `nrfloader upload`: a complete DFU of a package, image or catalog entry.
struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Update a device's firmware over DFU (Secure or legacy, buttonless or in bootloader mode).",
        discussion: """
            INPUT is an nrfutil package (.zip), an Intel HEX file, a binary image (.bin), a catalog id, or '-' for \
            standard input. For .hex, .bin and catalog inputs the init packet is generated (--dfu, --sd-req, \
            --hw-version, --fw-version, --key). --target ADDRESS or --name NAME updates a device through BlueZ; --target sim runs the whole update against a simulated Nordic \
            bootloader in this process: sim (Secure DFU), sim:buttonless, sim:legacy, sim:legacy-v1; --target sim:smp \
            sends a signed MCUboot image (.bin), or every image of an nRF Connect SDK dfu_application.zip, over SMP \
            (MCUmgr) to a simulated Zephyr/MCUboot device (--smp-mode). --port PATH updates over a serial port: a \
            signed MCUboot image or an NCS dfu_application.zip over SMP in Zephyr's console framing, anything else \
            over nRF5 serial DFU.
            """
    )

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF), or 'sim[:secure|buttonless|legacy|legacy-v1|smp]'; "
                + "repeat it to update several devices at once."))
    var targets: [String] = []
    var target: String? { targets.first }

    @Option(
        help: ArgumentHelp(
            "The device that advertises exactly this name (an error if several do); with --all a regular "
                + "expression, and every device whose name matches is updated."))
    var name: String?

    @Argument(help: "A .zip package, .hex, .bin, catalog id, or '-' for standard input.")
    var input: String

    @Option(
        name: .customLong("adapter"),
        help: ArgumentHelp(
            "The Bluetooth adapter, e.g. hci0 (default: the first powered adapter); repeat it to spread several "
                + "devices over adapters."))
    var adapters: [String] = []
    var adapter: String? { adapters.first }

    @Flag(help: "Wait for the device to appear, up to --timeout seconds (default 60), instead of 15 s.")
    var wait = false

    @Flag(help: "Use D-Bus WriteValue/StartNotify only, not BlueZ's AcquireWrite/AcquireNotify sockets.")
    var noAcquire = false

    @OptionGroup var serialOptions: SerialOptions
    @OptionGroup var initPacketOptions: InitPacketOptions
    @OptionGroup var engineOptions: EngineOptions
    @OptionGroup var simulatorOptions: SimulatorOptions
    @OptionGroup(title: "SMP (MCUmgr)") var smpOptions: SMPOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup(title: "Several devices") var fleetOptions: FleetOptions

    func validate() throws {
        if serialOptions.port != nil {
            guard target == nil, name == nil else { throw ValidationError("--port excludes --target and --name") }
            return
        }
        if isFleet { return try validateFleet() }
        if isSMPSimulation { return try validateSMPSimulation() }
        switch (target, name) {
        case (nil, nil): throw ValidationError("give the device with --target ADDRESS, --name NAME or --port PATH")
        case (.some, .some): throw ValidationError("--target and --name exclude each other")
        case (let target?, nil):
            if try simulatedKind() == nil {
                do { _ = try BluetoothAddress(parsing: target) } catch {
                    throw ValidationError(
                        "--target: \(error) (or sim, sim:buttonless, sim:legacy, sim:legacy-v1, sim:smp)")
                }
            }
        case (nil, let name?):
            if name.isEmpty { throw ValidationError("--name must not be empty") }
        }
    }

    /// The simulated device `--target` names, or `nil` for a Bluetooth device.
    private func simulatedKind() throws -> SimulatedTargetKind? {
        guard let target, target == "sim" || target.hasPrefix("sim:") else { return nil }
        let name = target == "sim" ? "secure" : String(target.dropFirst(4))
        guard let kind = SimulatedTargetKind(rawValue: name) else {
            let kinds = SimulatedTargetKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
            throw ValidationError("unknown simulated target '\(target)' (valid: sim, \(kinds), sim:smp)")
        }
        return kind
    }

    func run() async throws {
        if let port = serialOptions.port { return try await runSerial(serialOptions, port: port) }
        if isFleet {
            if let image = try mcubootFleetInput() { return try await runSMPFleet(image) }
            return try await runFleet()
        }
        if isSMPSimulation { return try await runSMPSimulated() }
        if let kind = try simulatedKind() {
            try await runSimulated(kind)
        } else {
            try await runBluetooth()
        }
    }

    private func runSimulated(_ kind: SimulatedTargetKind) async throws {
        let firmware = try loadInput(defaultProtocol: nil)
        try initPacketOptions.verifySignatures(of: firmware)
        try simulatorOptions.checkImageDirectory()
        let device = try simulatorOptions.device(kind, for: firmware)
        // One timeout model (issue 23): the simulated link's ATT wait is --timeout, as BlueZ's is.
        let transport = SimulatedTransport(
            device: device, speed: simulatorOptions.simSpeed > 0 ? simulatorOptions.simSpeed : nil,
            operationTimeout: engineOptions.configuration.responseTimeout)
        guard let advertised = device.advertisement else {
            throw ValidationError("the simulated \(kind.rawValue) device does not advertise")
        }
        let address = try BluetoothAddress(parsing: advertised.address.description)
        let label = "\(target ?? "sim") (\(advertised.address))"
        do {
            try await upload(firmware, to: address, named: label, over: transport)
        } catch {
            try simulatorOptions.saveActivatedImages(of: transport.device)
            throw error
        }
        try simulatorOptions.saveActivatedImages(of: transport.device)
    }

    private func runBluetooth() async throws {
        // The input first: a bad file fails before any radio work. A signed MCUboot image goes over SMP.
        let contents: [UInt8]?
        switch try readInput() {
        case .smp(let update): return try await runSMPBluetooth(update)
        case .dfu(let bytes): contents = bytes
        }
        let firmware = try loadInput(defaultProtocol: nil, contents: contents)
        try initPacketOptions.verifySignatures(of: firmware)
        let (address, transport, label) = try await openBluetoothDevice()
        try await upload(firmware, to: address, named: label, over: transport) {
            let paths = transport.paths
            return "link: packets via \(paths.acquiredWrite ? "AcquireWrite socket" : "D-Bus WriteValue"), "
                + "notifications via \(paths.acquiredNotify ? "AcquireNotify socket" : "D-Bus PropertiesChanged")"
        }
    }

    /// The device of `--target ADDRESS` or `--name NAME` on `--adapter`, a BlueZ transport open to reach it, and the
    /// name the output gives it.
    ///
    /// `--name` searches 15 s (until `--timeout`, default 60, with `--wait`), as `--help`
    /// says.
    func openBluetoothDevice() async throws -> (BluetoothAddress, BlueZGATTTransport, String) {
        let limit =
            wait ? engineOptions.timeout ?? 60 : Int(engineOptions.configuration.connectionTimeout / .seconds(1))
        return try await Self.openBluetoothDevice(
            target: target, name: name, adapter: adapter, options: bluetoothOptions, nameSearch: limit)
    }

    /// The device at `target`, or the one advertising `name` (searched for `nameSearch` seconds), on `adapter`; a
    /// BlueZ transport open to reach it; and the name the output gives it.
    ///
    /// `upload` and the SMP commands share it.
    static func openBluetoothDevice(
        target: String?, name: String?, adapter: String?, options: BlueZGATTTransport.Options, nameSearch: Int
    ) async throws -> (BluetoothAddress, BlueZGATTTransport, String) {
        let client = try await BlueZClient.connect()
        let chosen = try await client.adapter(named: adapter)
        let address: BluetoothAddress
        if let target {
            address = try BluetoothAddress(parsing: target)
        } else {
            address = try await resolve(name: name ?? "", client: client, adapter: chosen, seconds: nameSearch)
        }
        let transport = try await BlueZGATTTransport.open(client: client, adapter: chosen, options: options)
        let label =
            name.map { "'\($0)' (\(address)) via \(chosen.interfaceName)" } ?? "\(address) via \(chosen.interfaceName)"
        return (address, transport, label)
    }

    /// The BlueZ transport's behaviour from `--no-acquire`, `--wait`, `--timeout` and `--retries`.
    ///
    /// One timeout model (issue 16): `--timeout` bounds every wait on the device, ATT write responses included;
    /// `--retries` bounds the connection attempts as it bounds the reconnections.
    var bluetoothOptions: BlueZGATTTransport.Options {
        var options = BlueZGATTTransport.Options()
        options.usesAcquiredSockets = !noAcquire
        if wait { options.firstSearchTimeout = .seconds(engineOptions.timeout ?? 60) }
        options.operationTimeout = engineOptions.configuration.responseTimeout
        if let retries = engineOptions.retries { options.connectionAttempts = retries }
        return options
    }

    /// The one device advertising `name` exactly, scanning in 3-second rounds for `limit` seconds (at least one
    /// round): `upload --name` and the SMP commands' `--name`.
    static func resolve(name: String, client: BlueZClient, adapter: AdapterInfo, seconds limit: Int) async throws
        -> BluetoothAddress
    {
        let started = ContinuousClock.now
        var matches: [ScannedDevice] = []
        repeat {
            try await DFUScanner(client: client).scan(adapter: adapter, duration: .seconds(3), includeAll: true) {
                device in
                if device.name == name, !matches.contains(where: { $0.address == device.address }) {
                    matches.append(device)
                }
            }
        } while matches.isEmpty && started.duration(to: .now) < .seconds(limit)
        switch matches.count {
        case 0:
            throw CLIError.deviceNameNotFound(name: name, adapter: adapter.interfaceName, seconds: max(limit, 3))
        case 1:
            return matches[0].address
        default:
            let listed = matches.map { device in
                device.rssi.map { "\(device.address) (RSSI \($0))" } ?? device.address.description
            }
            throw CLIError.ambiguousDeviceName(name: name, adapter: adapter.interfaceName, devices: listed)
        }
    }

    /// Runs the engine over `transport`, rendering progress; Ctrl-C cancels it cleanly.
    func upload<Transport: GATTTransport>(
        _ firmware: FirmwareInput, to address: BluetoothAddress, named targetName: String, over transport: Transport,
        configuration: DFUConfiguration? = nil, describeLink: (@Sendable () -> String)? = nil
    ) async throws {
        let controller = DFUController(
            firmware: firmware.firmware, target: address, configuration: configuration ?? engineOptions.configuration)
        let mode = renderMode
        let upload = Task { () -> UploadResult in
            let renderer = UploadRenderer(mode: mode)
            renderer.begin(firmware, target: targetName)
            var deviceWasReached = false
            let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { event in
                if case .phase(let report) = event, report.phase != .connecting { deviceWasReached = true }
                renderer.handle(event)
            }
            if let link = describeLink?(), deviceWasReached {
                renderer.handle(.log(link))
                if mode == .lines || mode == .terminal { Console.note(link) }
            }
            switch outcome {
            case .completed(let summary):
                renderer.finish(summary)
                return .completed
            case .failed(let error, let reached):
                let failure = UploadFailure(error: error, deviceWasReached: reached)
                renderer.fail(failure.description, status: failure.exitStatus)
                return .failed(failure)
            }
        }
        Interrupts.onFirstInterrupt { upload.cancel() }
        if case .failed(let failure) = await upload.value { throw failure }
    }

    /// Whether `--target sim:smp` asks for the simulated SMP device (one device, not a fleet).
    var isSMPSimulation: Bool { targets == ["sim:smp"] && name == nil }

    /// How progress is shown: JSON Lines, quiet, redrawn on a terminal, or one line per phase.
    var renderMode: UploadRenderer.Mode {
        outputOptions.json
            ? .json
            : outputOptions.quiet ? .quiet : Console.isTerminal(2) && !Console.isDumbTerminal ? .terminal : .lines
    }

    /// The input as firmware for DFU.
    ///
    /// - Parameters:
    ///   - defaultProtocol: The init packet's protocol when one is generated.
    ///   - contents: The input's bytes when they were read already (standard input can be read once only).
    /// - Returns: The firmware.
    /// - Throws: ``CLIError``, ``CatalogError`` or the input's parse errors.
    func loadInput(defaultProtocol: FirmwareInput.ProtocolFamily?, contents: [UInt8]? = nil) throws -> FirmwareInput {
        let options = try initPacketOptions.generationOptions(defaultProtocol: defaultProtocol)
        let isFile = contents != nil || input == "-" || FileManager.default.fileExists(atPath: input)
        guard isFile else {
            let catalog = try catalogOptions.load()
            guard let entry = catalog.entry(id: input) else {
                throw CatalogError.unknownID(input, known: catalog.entries.map(\.id))
            }
            return try FirmwareInput(entry: entry, options: options)
        }
        let name = input == "-" ? "<stdin>" : input
        let bytes = try contents ?? InputFile(path: input).readAll()
        switch ImageFormat(path: input, contents: bytes) {
        case .package: return try FirmwareInput(zip: bytes, name: name)
        case .intelHex: return try FirmwareInput(hex: bytes, name: name, options: options)
        case .binary: return try FirmwareInput(binary: bytes, name: name, options: options)
        }
    }
}

/// How the upload task ended.
enum UploadResult: Sendable {
    case completed
    case failed(UploadFailure)
}

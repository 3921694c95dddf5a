import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator

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
            over nRF5 serial DFU. --target udp:HOST[:PORT] (udp:[IPV6]:PORT for IPv6; port 1337 by default) sends \
            MCUboot firmware over SMP to a device with Zephyr's MCUmgr UDP transport.
            """
    )

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF), udp:HOST[:PORT] (SMP over UDP), or "
                + "'sim[:secure|buttonless|legacy|legacy-v1|smp]'; repeat it to update several devices at once."))
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
        case (let target?, nil) where UDPDeviceAddress.isUDPTarget(target):
            do { _ = try UDPDeviceAddress(parsing: target) } catch { throw ValidationError("--target: \(error)") }
        case (let target?, nil):
            if try simulatedKind() == nil {
                do { _ = try BluetoothDeviceAddress(parsing: target) } catch {
                    throw ValidationError(
                        "--target: \(error) (or sim, sim:buttonless, sim:legacy, sim:legacy-v1, sim:smp)")
                }
            }
        case (nil, let name?):
            if name.isEmpty { throw ValidationError("--name must not be empty") }
        }
    }

    /// The simulated nRF5 device `--target` names, or `nil` for a Bluetooth device (`sim:smp` is
    /// ``isSMPSimulation``).
    private func simulatedKind() throws -> SimulatedDeviceKind? {
        guard let target else { return nil }
        return try Self.simulatedDFUKind(target, alsoValid: ", sim:smp")
    }

    /// The simulated nRF5 device kind a `--target` names (`sim`, `sim:buttonless`, `sim:legacy`, `sim:legacy-v1`),
    /// or `nil` for a Bluetooth address.
    ///
    /// - Parameters:
    ///   - target: The `--target` text.
    ///   - alsoValid: More valid targets, for the message: `, sim:smp` where one device is updated.
    /// - Returns: The kind, or `nil` for a target that does not start with `sim`.
    /// - Throws: `ValidationError` for `sim:` and an unknown kind.
    static func simulatedDFUKind(_ target: String, alsoValid: String) throws -> SimulatedDeviceKind? {
        guard target == "sim" || target.hasPrefix("sim:") else { return nil }
        let name = target == "sim" ? "secure" : String(target.dropFirst(4))
        let kinds = SimulatedDeviceKind.allCases.filter { $0 != .smp }
        guard let kind = kinds.first(where: { $0.rawValue == name }) else {
            let names = kinds.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
            throw ValidationError("unknown simulated target '\(target)' (valid: sim, \(names)\(alsoValid))")
        }
        return kind
    }

    func run() async throws {
        if isFleet {
            if let (firmware, image) = try mcubootFleetInput() { return try await runSMPFleet(firmware, image: image) }
            return try await runFleet()
        }
        // The input first, read once (standard input can be read once only): a bad file fails before any device
        // work.
        let firmware = try Firmware(input, options: firmwareOptions)
        if let port = serialOptions.port {
            return try await perform(
                FirmwareUpdate(
                    firmware: firmware, target: .serial(port, options: serialPortOptions), options: updateOptions))
        }
        if let target, UDPDeviceAddress.isUDPTarget(target) {
            let device = UpdateTarget.udp(try UDPDeviceAddress(parsing: target))
            return try await perform(FirmwareUpdate(firmware: firmware, target: device, options: updateOptions))
        }
        let kind: SimulatedDeviceKind? = isSMPSimulation ? .smp : try simulatedKind()
        guard let kind else {
            let device: UpdateTarget =
                if let target { try .bluetooth(address: target, options: bluetoothTargetOptions) } else {
                    .bluetooth(name: name ?? "", options: bluetoothTargetOptions)
                }
            return try await perform(FirmwareUpdate(firmware: firmware, target: device, options: updateOptions))
        }
        try simulatorOptions.checkImageDirectory()
        var deviceOptions = simulatorOptions.deviceOptions
        deviceOptions.name = target ?? kind.targetName
        deviceOptions.smpImages = smpOptions.simImages
        deviceOptions.smpParameters = smpOptions.simSmpParams.map { ($0.bufferSize, $0.bufferCount) }
        let simulated = try SimulatedTarget(kind, options: deviceOptions)
        do {
            try await perform(FirmwareUpdate(firmware: firmware, target: simulated.target, options: updateOptions))
        } catch {
            try simulatorOptions.save(simulated.images)
            throw error
        }
        try simulatorOptions.save(simulated.images)
    }

    /// Runs `update`, rendering its events; Ctrl-C cancels it cleanly (the device is told to abort).
    func perform(_ update: FirmwareUpdate) async throws {
        let mode = renderMode
        let task = Task { () -> (any Error)? in
            let renderer = UploadRenderer(mode: mode)
            do {
                _ = try await update.run { renderer.handle($0) }
                return nil
            } catch {
                renderer.fail()
                return error
            }
        }
        Interrupts.onFirstInterrupt { task.cancel() }
        if let error = await task.value { throw error }
    }

    /// `--init-packet` options and `--catalog`, for the library.
    var firmwareOptions: FirmwareOptions {
        var options = initPacketOptions.firmwareOptions
        options.catalogFile = catalogOptions.catalog
        options.catalogReplacesEmbedded = catalogOptions.catalogReplace
        options.mcubootImageNumber = smpOptions.imageNumber
        return options
    }

    /// `--prn`, `--retries`, `--timeout`, `--no-resume`, `--smp-mode`, `--smp-window`.
    var updateOptions: UpdateOptions { smpOptions.updateOptions(engineOptions) }

    /// `--baud`, `--flow-control`, `--touch`.
    var serialPortOptions: SerialPortOptions {
        var options = SerialPortOptions()
        options.baudRate = serialOptions.baud
        options.flowControl = serialOptions.flowControl
        options.touchBaudRate = serialOptions.touch
        return options
    }

    /// `--adapter`, `--wait` (the search lasts `--timeout`, default 60 s), `--no-acquire`.
    var bluetoothTargetOptions: BluetoothOptions {
        var options = BluetoothOptions()
        options.adapter = adapter
        options.usesAcquiredSockets = !noAcquire
        if wait { options.searchTimeout = .seconds(engineOptions.timeout ?? 60) }
        return options
    }

    /// Whether `--target sim:smp` asks for the simulated SMP device (one device, not a fleet).
    var isSMPSimulation: Bool { targets == ["sim:smp"] && name == nil }

    /// How progress is shown: JSON Lines, quiet, redrawn on a terminal, or one line per phase.
    var renderMode: UploadRenderer.Mode {
        outputOptions.json
            ? .json
            : outputOptions.quiet ? .quiet : Console.isTerminal(2) && !Console.isDumbTerminal ? .terminal : .lines
    }
}

import ArgumentParser
import BlueZ
import BlueZTransport
import DBus
import DFUController
import DFUSimulator
import DFUTargetAdapter
import FirmwareInput
import FleetUpload
import FoundationEssentials
import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `upload` to several devices at once: several `--target`, `--targets-from`, `--name REGEX --all`, several
/// `--adapter`. One device named by `--target` or `--name` keeps the single-device path of `UploadCommand.swift`.
extension UploadCommand {
    /// Whether the command line asks for the multi-device path.
    var isFleet: Bool { targets.count > 1 || adapters.count > 1 || fleetOptions.asksForSeveralDevices }

    func validateFleet() throws {
        if fleetOptions.all, name == nil { throw ValidationError("--all needs --name REGEX") }
        if let name, !fleetOptions.all {
            throw ValidationError("--name '\(name)' selects exactly one device; add --all to update every match")
        }
        if let name {
            if name.isEmpty { throw ValidationError("--name must not be empty") }
            guard (try? Regex(name)) != nil else {
                throw ValidationError("--name '\(name)' is not a valid regular expression")
            }
        }
        if targets.isEmpty, fleetOptions.targetsFrom == nil, name == nil {
            throw ValidationError(
                "give the devices with --target (repeatable), --targets-from FILE or --name REGEX --all")
        }
        if fleetOptions.targetsFrom == "-", input == "-" {
            throw ValidationError("--targets-from - and the input '-' cannot both read standard input")
        }
        let kinds = try targets.map(Self.simulatedKind)
        let simulatedCount = kinds.compactMap { $0 }.count
        if simulatedCount > 0 {
            if simulatedCount < targets.count || fleetOptions.targetsFrom != nil || name != nil || !adapters.isEmpty {
                throw ValidationError("simulated targets (sim...) cannot be mixed with Bluetooth devices or --adapter")
            }
            if Set(kinds.compactMap { $0?.protocolFamily }).count > 1 {
                throw ValidationError("simulated targets of one run must all speak Secure DFU or all legacy DFU")
            }
        } else {
            if !fleetOptions.simFaultOn.isEmpty || simulatorOptions.simSaveImages != nil {
                throw ValidationError("--sim-fault-on and --sim-save-images need simulated targets (--target sim...)")
            }
            var seen: Set<BluetoothAddress> = []
            for target in targets {
                let address: BluetoothAddress
                do { address = try BluetoothAddress(parsing: target) } catch {
                    throw ValidationError("--target: \(error) (or sim, sim:buttonless, sim:legacy, sim:legacy-v1)")
                }
                guard seen.insert(address).inserted else { throw ValidationError("--target \(target) is given twice") }
            }
        }
        for text in fleetOptions.simFaultOn {
            let (device, fault) = try FleetOptions.parseFaultOn(text)
            guard device <= simulatedCount else {
                throw ValidationError("--sim-fault-on \(text): there are only \(simulatedCount) simulated targets")
            }
            do { _ = try FaultSpecification.parse(fault) } catch { throw ValidationError("--sim-fault-on: \(error)") }
        }
    }

    /// The simulated kind a `--target` names, `nil` for a Bluetooth address.
    private static func simulatedKind(_ target: String) throws -> SimulatedTargetKind? {
        guard target == "sim" || target.hasPrefix("sim:") else { return nil }
        let name = target == "sim" ? "secure" : String(target.dropFirst(4))
        guard let kind = SimulatedTargetKind(rawValue: name) else {
            let kinds = SimulatedTargetKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
            throw ValidationError("unknown simulated target '\(target)' (valid: sim, \(kinds))")
        }
        return kind
    }

    /// A bad `--targets-from` list is a ``FleetTargetListError``: exit 64 as a validation error would, without
    /// ArgumentParser's usage lines (the list is read after the input).
    func runFleet() async throws {
        let kinds = try targets.compactMap(Self.simulatedKind)
        if !kinds.isEmpty {
            try await runSimulatedFleet(kinds)
        } else {
            try await runBluetoothFleet()
        }
    }

    // MARK: The in-process simulator

    /// The address of the `index`th (0-based) simulated device: C0:DE:00:00:01:01, C0:DE:00:00:02:01, …, so that
    /// devices can be told apart (and their bootloaders at address + 1 never collide).
    private static func simulatedAddress(_ index: Int) -> DeviceAddress {
        DeviceAddress(bytes: [
            0xC0, 0xDE, 0x00, UInt8(truncatingIfNeeded: (index + 1) >> 8),
            UInt8(truncatingIfNeeded: index + 1), 0x01,
        ])
    }

    private func runSimulatedFleet(_ kinds: [SimulatedTargetKind]) async throws {
        let firmware = try loadInput(defaultProtocol: nil)
        try initPacketOptions.verifySignatures(of: firmware)
        try simulatorOptions.checkImageDirectory()
        var simulated: [SimulatedDevice] = []
        for (index, kind) in kinds.enumerated() {
            let own = try fleetOptions.simFaultOn.map(FleetOptions.parseFaultOn).filter { $0.device == index + 1 }
            let faults = try SimulatorSetup.faultPlan(
                simulatorOptions.simFault + own.map(\.fault), seed: simulatorOptions.simSeed)
            let configuration = SimulatorSetup.configuration(kind, for: firmware, faults: faults)
            simulated.append(SimulatedDevice.advertising(configuration, at: Self.simulatedAddress(index)))
        }
        var devices: [FleetDevice] = []
        for device in simulated {
            guard let advertised = device.advertisement else {
                throw ValidationError("a simulated device does not advertise")
            }
            devices.append(FleetDevice(address: try BluetoothAddress(parsing: "\(advertised.address)"), lane: "sim"))
        }
        let speed = simulatorOptions.simSpeed > 0 ? simulatorOptions.simSpeed : nil
        let transports = SimulatedTransports()
        let simulatedDevices = simulated
        let operationTimeout = engineOptions.configuration.responseTimeout
        let outcomes = await runFleet(firmware, devices: devices) { index, _ in
            let transport = SimulatedTransport(
                device: simulatedDevices[index], speed: speed, operationTimeout: operationTimeout)
            transports.store(transport, at: index)
            return transport
        }
        for (index, device) in devices.enumerated() {
            guard let transport = transports.transport(at: index) else { continue }
            try simulatorOptions.saveActivatedImages(of: transport.device, folder: Self.directoryName(device.address))
        }
        try finishFleet(outcomes)
    }

    /// `C0-DE-00-00-01-01`: an address as a directory name.
    private static func directoryName(_ address: BluetoothAddress) -> String {
        address.description.split(separator: ":").joined(separator: "-")
    }

    // MARK: BlueZ

    private func runBluetoothFleet() async throws {
        let firmware = try loadInput(defaultProtocol: nil)
        try initPacketOptions.verifySignatures(of: firmware)
        var listed: [FleetTargetList.Entry] = []
        for target in targets { listed.append(.init(address: try BluetoothAddress(parsing: target), name: nil)) }
        if let file = fleetOptions.targetsFrom {
            let list = try FleetTargetList(try InputFile(path: file).readAll(), file: file == "-" ? "<stdin>" : file)
            for entry in list.entries where !listed.contains(where: { $0.address == entry.address }) {
                listed.append(entry)
            }
        }
        let client = try await BlueZClient.connect()
        var chosen: [AdapterInfo] = []
        for name in adapters.isEmpty ? [nil] : adapters.map(Optional.some) {
            let adapter = try await client.adapter(named: name)
            if !chosen.contains(where: { $0.path == adapter.path }) { chosen.append(adapter) }
        }
        // Devices given by address are spread over the adapters in turn; devices found by name stay on the
        // adapter that saw them.
        var devices = listed.enumerated().map { index, entry in
            FleetDevice(address: entry.address, name: entry.name, lane: chosen[index % chosen.count].interfaceName)
        }
        if let name {
            for found in try await scan(matching: name, client: client, adapters: chosen)
            where !devices.contains(where: { $0.address == found.address }) {
                devices.append(found)
            }
        }
        let transportOptions = bluetoothOptions
        let adapterList = chosen
        let adapterByLane = Dictionary(chosen.map { ($0.interfaceName, $0) }, uniquingKeysWith: { first, _ in first })
        let scan = try await SharedDiscovery.start(on: chosen)
        let outcomes = await runFleet(firmware, devices: devices) { _, device in
            // One transport per device on the one shared client (and its one D-Bus connection).
            try await BlueZGATTTransport.open(
                client: client, adapter: adapterByLane[device.lane] ?? adapterList[0], options: transportOptions)
        }
        await scan.stop()
        try finishFleet(outcomes)
    }

    /// Every device whose advertised name matches `pattern`, scanning all adapters at once in 1-second rounds for
    /// `--timeout` seconds (default 15), or until `--count` are found.
    private func scan(matching pattern: String, client: BlueZClient, adapters: [AdapterInfo]) async throws
        -> [FleetDevice]
    {
        let limit = engineOptions.timeout ?? 15
        let wanted = fleetOptions.count ?? Int.max
        let started = ContinuousClock.now
        var found: [FleetDevice] = []
        repeat {
            try await withThrowingTaskGroup(of: [FleetDevice].self) { group in
                for adapter in adapters {
                    group.addTask {
                        let regex = try Regex(pattern)
                        var matches: [FleetDevice] = []
                        try await DFUScanner(client: client).scan(
                            adapter: adapter, duration: .seconds(1), includeAll: true
                        ) { device in
                            guard let name = device.name, (try? regex.firstMatch(in: name)) != nil else { return }
                            matches.append(
                                FleetDevice(address: device.address, name: name, lane: adapter.interfaceName))
                        }
                        return matches
                    }
                }
                for try await matches in group {
                    for device in matches where !found.contains(where: { $0.address == device.address }) {
                        found.append(device)
                    }
                }
            }
        } while found.count < wanted && started.duration(to: .now) < .seconds(limit)
        guard !found.isEmpty else {
            throw ToolError.deviceNameNotFound(
                name: pattern, adapter: adapters.map(\.interfaceName).joined(separator: ","), seconds: limit)
        }
        return Array(found.prefix(wanted))
    }

    // MARK: Running and ending

    /// Runs every device's update with the renderer attached; Ctrl-C cancels them all.
    private func runFleet<Transport: GATTTransport>(
        _ firmware: FirmwareInput, devices: [FleetDevice],
        makeTransport: @escaping FleetUpload<Transport>.TransportFactory
    ) async -> [FleetOutcome] {
        let mode: UploadRenderer.Mode =
            outputOptions.json
            ? .json
            : outputOptions.quiet ? .quiet : Console.isTerminal(2) && !Console.isDumbTerminal ? .terminal : .lines
        let parallel = fleetOptions.parallel ?? FleetOptions.defaultParallel
        let renderer = FleetRenderer(
            mode: mode, input: firmware, devices: devices, labels: devices.map(\.address.description))
        let fleet = FleetUpload(
            devices: devices, firmware: firmware.firmware, configuration: engineOptions.configuration,
            parallel: parallel, makeTransport: makeTransport)
        renderer.begin(parallel: parallel)
        let run = Task {
            await fleet.run { index, event in
                if case .finished(let outcome) = event {
                    let (status, message) = Self.status(of: outcome)
                    renderer.handle(index, event, status: status, message: message)
                } else {
                    renderer.handle(index, event)
                }
            }
        }
        Interrupts.onFirstInterrupt { run.cancel() }
        let outcomes = await run.value
        renderer.summary(exitStatus: Self.fleetStatus(outcomes))
        return outcomes
    }

    /// Ends the command: exit 0 when every device confirmed the update, otherwise the most serious status.
    private func finishFleet(_ outcomes: [FleetOutcome]) throws {
        let status = Self.fleetStatus(outcomes)
        guard status != .success else { return }
        let failed = outcomes.filter { !$0.isCompleted }.count
        Console.note("Error: \(failed) of \(outcomes.count) devices were not updated (see the summary)")
        Glibc.exit(status.rawValue)
    }

    /// A device's exit status and the one-line reason, `nil` for success.
    static func status(of outcome: FleetOutcome) -> (ExitStatus, String?) {
        switch outcome {
        case .completed:
            return (.success, nil)
        case .failed(let error, let deviceWasReached):
            let failure = UploadFailure(error: error, deviceWasReached: deviceWasReached)
            return (failure.exitStatus, failure.description)
        case .notOpened(let error):
            return (ExitStatus(for: error), "\(error)")
        case .notStarted:
            return (.interrupted, "not started: the run was interrupted")
        }
    }

    /// The statuses of failed devices, most serious first: the run's exit status is the first one present.
    ///
    /// An interrupted run says so above all (130); then a bug (70); then what no retry fixes: bad input or
    /// firmware the devices refuse (65, 66, 64), a device that broke or rejected the protocol (76); then absent
    /// devices or BlueZ (69), output trouble (73, 74); last what a retry may fix (75).
    static let severity: [ExitStatus] = [
        .interrupted, .software, .dataError, .noInput, .usage, .protocolError, .unavailable, .cannotCreate, .ioError,
        .temporaryFailure,
    ]

    static func fleetStatus(_ outcomes: [FleetOutcome]) -> ExitStatus {
        let statuses = Set(outcomes.map { status(of: $0).0 }).subtracting([.success])
        return severity.first(where: statuses.contains) ?? statuses.first ?? .success
    }
}

/// The simulator transports of a run, kept to read the devices' images afterwards.
private final class SimulatedTransports: Sendable {
    private let transports = Mutex<[Int: SimulatedTransport]>([:])

    func store(_ transport: SimulatedTransport, at index: Int) {
        transports.withLock { $0[index] = transport }
    }

    func transport(at index: Int) -> SimulatedTransport? {
        transports.withLock { $0[index] }
    }
}

/// One discovery session per adapter that lasts the whole run, held on a D-Bus connection of its own.
///
/// Each transport starts discovery when it looks for its device and stops it once found. BlueZ keeps one discovery
/// session per D-Bus client, and all transports share one client: the first device found would stop the scan the
/// others still wait on. A session held by another client keeps the adapter scanning until the run ends (BlueZ
/// scans while any client asks), and its sightings reach every transport as signals.
private struct SharedDiscovery {
    let client: BlueZClient
    let adapters: [AdapterInfo]

    static func start(on adapters: [AdapterInfo]) async throws -> SharedDiscovery {
        let client = try await BlueZClient.connect()
        for adapter in adapters {
            do {
                try await client.startDiscovery(on: adapter)
            } catch .inProgress {
                // Already scanning for this client.
            }
        }
        return SharedDiscovery(client: client, adapters: adapters)
    }

    func stop() async {
        for adapter in adapters { try? await client.stopDiscovery(on: adapter) }
        client.connection.close()
    }
}

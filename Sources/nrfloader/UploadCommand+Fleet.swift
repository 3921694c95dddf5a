import ArgumentParser
import BlueZ
import BlueZTransport
import DBus
import DFUController
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import FirmwareInput
import FoundationEssentials
import NRFLoaderBlueZ
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
        // The input first: a bad file fails before any device work.
        let firmware = try Firmware(input, options: firmwareOptions)
        let input = try firmware.dfuInput(defaultProtocol: nil)
        let kinds = try targets.compactMap(Self.simulatedKind)
        if !kinds.isEmpty {
            try await runSimulatedFleet(firmware, input, kinds: kinds)
        } else {
            try await runBluetoothFleet(firmware, input)
        }
    }

    // MARK: The in-process simulator

    /// The address of the `index`th (0-based) simulated device: C0:DE:00:00:01:01, C0:DE:00:00:02:01, …, so that
    /// devices can be told apart (and their bootloaders at address + 1 never collide).
    private static func simulatedAddress(_ index: Int) -> String {
        BluetoothAddress(
            (0xC0, 0xDE, 0x00, UInt8(truncatingIfNeeded: (index + 1) >> 8), UInt8(truncatingIfNeeded: index + 1), 0x01)
        )
        .description
    }

    private func runSimulatedFleet(_ firmware: Firmware, _ input: FirmwareInput, kinds: [SimulatedTargetKind])
        async throws
    {
        try simulatorOptions.checkImageDirectory()
        var simulated: [SimulatedTarget] = []
        for (index, kind) in kinds.enumerated() {
            let own = try fleetOptions.simFaultOn.map(FleetOptions.parseFaultOn).filter { $0.device == index + 1 }
            var options = simulatorOptions.deviceOptions
            options.faults += own.map(\.fault)
            options.address = Self.simulatedAddress(index)
            simulated.append(
                try SimulatedTarget(SimulatedDeviceKind(rawValue: kind.rawValue) ?? .secure, options: options))
        }
        let labels = simulated.map { $0.address ?? "" }
        let devices = labels.map { FleetRenderer.Device(label: $0, name: nil, lane: "sim") }
        let outcomes = try await runFleet(
            input, devices: devices,
            updates: simulated.map { device in
                FirmwareUpdate(firmware: firmware, target: device.target, options: updateOptions)
            }
        ) { fleet, onEvent in await fleet.run(onEvent: onEvent) }
        for (device, label) in zip(simulated, labels) {
            let images = device.images
            guard !images.isEmpty else { continue }
            try simulatorOptions.save(images, folder: label.split(separator: ":").joined(separator: "-"))
        }
        try finishFleet(outcomes)
    }

    // MARK: BlueZ

    private func runBluetoothFleet(_ firmware: Firmware, _ input: FirmwareInput) async throws {
        let listed = try listedDevices()
        let bluetooth = try await BluetoothFleet.open(adapters: adapters)
        // Devices given by address are spread over the adapters in turn; devices found by name stay on the
        // adapter that saw them.
        var devices = listed.enumerated().map { index, entry in
            FleetRenderer.Device(
                label: entry.address.description, name: entry.name,
                lane: bluetooth.adapters[index % bluetooth.adapters.count])
        }
        if let name {
            for found in try await bluetooth.devices(
                matching: name, within: .seconds(engineOptions.timeout ?? 15), count: fleetOptions.count)
            where !devices.contains(where: { $0.label == found.address }) {
                devices.append(FleetRenderer.Device(label: found.address, name: found.name, lane: found.adapter))
            }
        }
        let updates = try bluetoothUpdates(firmware, bluetooth, devices.map { ($0.label, $0.lane) })
        let outcomes = try await runFleet(input, devices: devices, updates: updates) { fleet, onEvent in
            try await bluetooth.run(fleet, onEvent: onEvent)
        }
        try finishFleet(outcomes)
    }

    /// The devices `--target` and `--targets-from` name, each once, in that order.
    func listedDevices() throws -> [FleetTargetList.Entry] {
        var listed: [FleetTargetList.Entry] = []
        for target in targets { listed.append(.init(address: try BluetoothAddress(parsing: target), name: nil)) }
        if let file = fleetOptions.targetsFrom {
            let list = try FleetTargetList(try InputFile(path: file).readAll(), file: file == "-" ? "<stdin>" : file)
            for entry in list.entries where !listed.contains(where: { $0.address == entry.address }) {
                listed.append(entry)
            }
        }
        return listed
    }

    /// One update of `firmware` per device, each through its adapter of `bluetooth`.
    func bluetoothUpdates(
        _ firmware: Firmware, _ bluetooth: BluetoothFleet, _ devices: [(address: String, lane: String)]
    ) throws -> [FirmwareUpdate] {
        try devices.map { device in
            FirmwareUpdate(
                firmware: firmware,
                target: try bluetooth.target(
                    address: device.address, adapter: device.lane, options: bluetoothTargetOptions),
                options: updateOptions)
        }
    }

    // MARK: Running and ending

    /// Runs every device's update with the renderer attached; Ctrl-C cancels them all.
    private func runFleet(
        _ input: FirmwareInput, devices: [FleetRenderer.Device], updates: [FirmwareUpdate],
        run:
            @escaping @Sendable (FleetUpdate, @escaping @Sendable (FleetUpdate.Event) -> Void) async throws
            -> [FleetUpdate.Outcome]
    ) async throws -> [FleetUpdate.Outcome] {
        let parallel = fleetOptions.parallel ?? FleetOptions.defaultParallel
        let renderer = FleetRenderer(mode: renderMode, input: input, devices: devices)
        let fleet = FleetUpdate(updates, maximumConcurrentUpdates: parallel)
        renderer.begin(parallel: parallel)
        let task = Task { try await run(fleet) { renderer.handle($0) } }
        Interrupts.onFirstInterrupt { task.cancel() }
        let outcomes = try await task.value
        renderer.summary(exitStatus: ExitStatus.mostSerious(of: outcomes.map(\.exitStatus)))
        return outcomes
    }

    /// Ends the command: exit 0 when every device confirmed the update, otherwise the most serious status.
    func finishFleet(_ outcomes: [FleetUpdate.Outcome]) throws {
        let status = ExitStatus.mostSerious(of: outcomes.map(\.exitStatus))
        guard status != .success else { return }
        let failed = outcomes.filter { $0.exitStatus != .success }.count
        Console.note("Error: \(failed) of \(outcomes.count) devices were not updated (see the summary)")
        Glibc.exit(status.rawValue)
    }
}

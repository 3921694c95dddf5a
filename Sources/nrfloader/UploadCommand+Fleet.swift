import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSimulator

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
        if targets.contains(where: UDPDeviceAddress.isUDPTarget) { return try validateUDPFleet() }
        let kinds = try targets.map { try Self.simulatedDFUKind($0, alsoValid: "") }
        let simulatedCount = kinds.compactMap { $0 }.count
        if simulatedCount > 0 {
            if simulatedCount < targets.count || fleetOptions.targetsFrom != nil || name != nil || !adapters.isEmpty {
                throw ValidationError("simulated targets (sim...) cannot be mixed with Bluetooth devices or --adapter")
            }
            if Set(kinds.compactMap { $0?.dfuProtocol }).count > 1 {
                throw ValidationError("simulated targets of one run must all speak Secure DFU or all legacy DFU")
            }
        } else {
            if !fleetOptions.simFaultOn.isEmpty || simulatorOptions.simSaveImages != nil {
                throw ValidationError("--sim-fault-on and --sim-save-images need simulated targets (--target sim...)")
            }
            var seen: Set<BluetoothDeviceAddress> = []
            for target in targets {
                let address: BluetoothDeviceAddress
                do { address = try BluetoothDeviceAddress(parsing: target) } catch {
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
            if case .malformed(let message)? = (kinds[device - 1] ?? .secure).faultProblem(fault) {
                throw ValidationError("--sim-fault-on: \(message)")
            }
        }
    }

    /// A bad `--targets-from` list is a ``FleetTargetListError``: exit 64 as a validation error would, without
    /// ArgumentParser's usage lines (the list is read after the input).
    func runFleet() async throws {
        // The input first: a bad file fails before any device work.
        let firmware = try Firmware(input, options: firmwareOptions)
        if try isUDPFleet() {
            throw ValidationError("udp: devices take signed MCUboot images over SMP, not '\(input)'")
        }
        let parts = try firmware.dfuParts()
        let kinds = try targets.compactMap { try Self.simulatedDFUKind($0, alsoValid: "") }
        if !kinds.isEmpty {
            try await runSimulatedFleet(firmware, parts, kinds: kinds)
        } else {
            try await runBluetoothFleet(firmware, parts)
        }
    }

    // MARK: The in-process simulator

    /// The address of the `index`th (0-based) simulated device: C0:DE:00:00:01:01, C0:DE:00:00:02:01, …, so that
    /// devices can be told apart (and their bootloaders at address + 1 never collide).
    private static func simulatedAddress(_ index: Int) -> String {
        BluetoothDeviceAddress(
            (0xC0, 0xDE, 0x00, UInt8(truncatingIfNeeded: (index + 1) >> 8), UInt8(truncatingIfNeeded: index + 1), 0x01)
        )
        .description
    }

    private func runSimulatedFleet(_ firmware: Firmware, _ parts: [UpdatePlan.Part], kinds: [SimulatedDeviceKind])
        async throws
    {
        try simulatorOptions.checkImageDirectory()
        var simulated: [SimulatedTarget] = []
        for (index, kind) in kinds.enumerated() {
            let own = try fleetOptions.simFaultOn.map(FleetOptions.parseFaultOn).filter { $0.device == index + 1 }
            var options = simulatorOptions.deviceOptions
            options.faults += own.map(\.fault)
            options.address = Self.simulatedAddress(index)
            simulated.append(try SimulatedTarget(kind, options: options))
        }
        let labels = simulated.map { $0.address ?? "" }
        let devices = labels.map { FleetRenderer.Device(label: $0, name: nil, lane: "sim") }
        let outcomes = try await runFleet(
            firmware, parts, devices: devices,
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

    private func runBluetoothFleet(_ firmware: Firmware, _ parts: [UpdatePlan.Part]) async throws {
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
        let outcomes = try await runFleet(firmware, parts, devices: devices, updates: updates) { fleet, onEvent in
            try await bluetooth.run(fleet, onEvent: onEvent)
        }
        try finishFleet(outcomes)
    }

    /// The devices `--target` and `--targets-from` name, each once, in that order.
    func listedDevices() throws -> [FleetTargetList.Entry] {
        var listed: [FleetTargetList.Entry] = []
        for target in targets {
            listed.append(.init(address: try BluetoothDeviceAddress(parsing: target), name: nil))
        }
        if let file = fleetOptions.targetsFrom {
            let list = try FleetTargetList(try InputText.read(file), file: file == "-" ? "<stdin>" : file)
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
        _ firmware: Firmware, _ parts: [UpdatePlan.Part], devices: [FleetRenderer.Device], updates: [FirmwareUpdate],
        run:
            @escaping @Sendable (FleetUpdate, @escaping @Sendable (FleetUpdate.Event) -> Void) async throws
            -> [FleetUpdate.Outcome]
    ) async throws -> [FleetUpdate.Outcome] {
        let parallel = fleetOptions.parallel ?? FleetOptions.defaultParallel
        let renderer = FleetRenderer(mode: renderMode, input: firmware.name, parts: parts, devices: devices)
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

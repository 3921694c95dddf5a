import ArgumentParser
import BlueZ
import BlueZTransport
import Checksums
import DBus
import DFUController
import FleetUpload
import FoundationEssentials
import MCUbootImage
import NRFLoaderKit
import SMP
import SMPBlueZ
import SMPTargetAdapter
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `upload` of a signed MCUboot image to several devices over SMP through BlueZ: several `--target`,
/// `--targets-from`, several `--adapter`. Each device gets its own SMP session (its own BlueZ client, so that its
/// discovery session is its own), up to `--parallel` at once per adapter; link set-ups on one adapter still take
/// turns (`BlueZGATTTransport`'s connection gate).
extension UploadCommand {
    /// Runs the fleet and exits with the most serious device status when any device was not updated.
    func runSMPFleet(_ image: MCUbootImage) async throws {
        guard name == nil else {
            throw ValidationError(
                "--name REGEX --all with a signed MCUboot image is not supported; give the devices with --target or "
                    + "--targets-from")
        }
        guard let hash = image.storedHash else { throw MCUbootImageError.missingHash(file: image.file) }
        var listed: [BluetoothAddress] = try targets.map { try BluetoothAddress(parsing: $0) }
        if let file = fleetOptions.targetsFrom {
            let list = try FleetTargetList(try InputFile(path: file).readAll(), file: file == "-" ? "<stdin>" : file)
            for entry in list.entries where !listed.contains(entry.address) { listed.append(entry.address) }
        }
        let probe = try await BlueZClient.connect()
        var chosen: [AdapterInfo] = []
        for adapterName in adapters.isEmpty ? [nil] : adapters.map(Optional.some) {
            let adapter = try await probe.adapter(named: adapterName)
            if !chosen.contains(where: { $0.path == adapter.path }) { chosen.append(adapter) }
        }
        probe.connection.close()
        let devices = listed.enumerated().map { index, address in
            FleetDevice(address: address, lane: chosen[index % chosen.count].interfaceName)
        }
        let options = bluetoothOptions
        var configuration = smpOptions.configuration(engineOptions)
        if let timeout = engineOptions.timeout { configuration.connectionTimeout = .seconds(timeout) }
        let session = SMPFleetSession(
            image: image, hash: hash, fileSHA256: SHA256.hash(image.bytes), configuration: configuration,
            options: options)
        let renderer = SMPFleetRenderer(mode: renderMode, image: image, devices: devices)
        let parallel = fleetOptions.parallel ?? FleetOptions.defaultParallel
        renderer.begin(parallel: parallel)
        let run = Task { await session.run(devices, parallel: parallel) { renderer.handle($0, $1) } }
        Interrupts.onFirstInterrupt { run.cancel() }
        let outcomes = await run.value
        let status = Self.severity.first { status in outcomes.contains { $0.exitStatus == status } } ?? .success
        renderer.summary(exitStatus: status)
        guard status != .success else { return }
        let failed = outcomes.filter { $0.exitStatus != .success }.count
        Console.note("Error: \(failed) of \(outcomes.count) devices were not updated (see the summary)")
        Glibc.exit(status.rawValue)
    }

    /// The checked MCUboot image when the input of a fleet is one (a file starting with the image magic, or a catalog
    /// id with `dfu.mcuboot`), else `nil`.
    func mcubootFleetInput() throws -> MCUbootImage? {
        // Standard input is read once, by whichever path takes it.
        guard input != "-", case .mcuboot(let update) = try Firmware(input, options: firmwareOptions).content else {
            return nil
        }
        guard !update.isPackage, let only = update.images.first else {
            throw ValidationError(
                "'\(input)' is an nRF Connect SDK package; several devices take one signed MCUboot image per run")
        }
        return only.image
    }
}

/// How one device's SMP update ended.
enum SMPFleetOutcome: Sendable {
    /// The device shows the image in the state asked for.
    case completed(SMPUploadResult)
    /// The update did not get there.
    case failed(SMPUploadFailure)
    /// The BlueZ client or transport for the device could not be opened.
    case notOpened(String, ExitStatus)
    /// The run was cancelled before the device's turn came.
    case notStarted

    var exitStatus: ExitStatus {
        switch self {
        case .completed: .success
        case .failed(let failure): failure.exitStatus
        case .notOpened(_, let status): status
        case .notStarted: .interrupted
        }
    }
}

/// What happens to one device of an SMP fleet, in order: `started`, its events, then one `finished`.
enum SMPFleetEvent: Sendable {
    case started
    case progress(SMPProgress, elapsed: Duration)
    case log(String)
    case finished(SMPFleetOutcome)
}

/// Runs the devices' SMP sessions, `parallel` at once per adapter, in the given order within an adapter.
struct SMPFleetSession: Sendable {
    let image: MCUbootImage
    let hash: [UInt8]
    let fileSHA256: [UInt8]
    let configuration: SMPUploadConfiguration
    let options: BlueZGATTTransport.Options

    func run(
        _ devices: [FleetDevice], parallel: Int, onEvent: @escaping @Sendable (Int, SMPFleetEvent) -> Void
    ) async -> [SMPFleetOutcome] {
        await FleetScheduler.run(
            devices, parallel: parallel, notStarted: .notStarted,
            session: { index, device in await session(index, device, onEvent: onEvent) },
            finished: { index, outcome in onEvent(index, .finished(outcome)) })
    }

    private func session(
        _ index: Int, _ device: FleetDevice, onEvent: @Sendable (Int, SMPFleetEvent) -> Void
    ) async -> SMPFleetOutcome {
        onEvent(index, .started)
        let gatt: BlueZGATTTransport
        do {
            let client = try await BlueZClient.connect()
            gatt = try await BlueZGATTTransport.open(
                client: client, adapter: try await client.adapter(named: device.lane), options: options)
        } catch {
            return .notOpened("\(error)", ExitStatus(for: error))
        }
        defer { gatt.client.connection.close() }
        let transport = BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: device.address))
        let uploader = SMPUploader(
            image: image.bytes, imageHash: hash, fileSHA256: fileSHA256, configuration: configuration)
        let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
            switch event {
            case .progress(let progress, let elapsed): onEvent(index, .progress(progress, elapsed: elapsed))
            case .log(let line): onEvent(index, .log(line))
            }
        }
        switch outcome {
        case .completed(let result): return .completed(result)
        case .failed(let error, let reached):
            return .failed(SMPUploadFailure(error: error, deviceWasReached: reached))
        }
    }
}

import ArgumentParser
import Catalog
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
            --hw-version, --fw-version, --key). --target sim runs the whole update against a simulated Nordic \
            bootloader in this process: sim (Secure DFU), sim:buttonless, sim:legacy, sim:legacy-v1.
            """
    )

    @Option(help: "The device: 'sim[:secure|buttonless|legacy|legacy-v1]' (simulated) or a Bluetooth address.")
    var target: String

    @Argument(help: "A .zip package, .hex, .bin, catalog id, or '-' for standard input.")
    var input: String

    @OptionGroup var initPacketOptions: InitPacketOptions
    @OptionGroup var engineOptions: EngineOptions
    @OptionGroup var simulatorOptions: SimulatorOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        _ = try simulatedKind()
    }

    /// The simulated device `--target` names, or `nil` for a Bluetooth address.
    private func simulatedKind() throws -> SimulatedTargetKind? {
        guard target == "sim" || target.hasPrefix("sim:") else { return nil }
        let name = target == "sim" ? "secure" : String(target.dropFirst(4))
        guard let kind = SimulatedTargetKind(rawValue: name) else {
            let kinds = SimulatedTargetKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
            throw ValidationError("unknown simulated target '\(target)' (valid: sim, \(kinds))")
        }
        return kind
    }

    func run() async throws {
        guard let kind = try simulatedKind() else {
            throw CLIError.bluetoothUnavailable(target: target)
        }
        let firmware = try loadInput(defaultProtocol: kind.protocolFamily)
        try initPacketOptions.verifySignatures(of: firmware)
        let device = try simulatorOptions.device(kind, for: firmware)
        let transport = SimulatedTransport(
            device: device, speed: simulatorOptions.simSpeed > 0 ? simulatorOptions.simSpeed : nil)
        guard let advertised = device.advertisement else { throw CLIError.bluetoothUnavailable(target: target) }
        let controller = DFUController(
            firmware: firmware.firmware, target: try BluetoothAddress(parsing: advertised.address.description),
            configuration: engineOptions.configuration)
        let mode: UploadRenderer.Mode =
            outputOptions.json
            ? .json
            : outputOptions.quiet ? .quiet : Console.isTerminal(2) && !Console.isDumbTerminal ? .terminal : .lines
        let targetName = "\(target) (\(advertised.address))"
        let upload = Task { () -> UploadResult in
            let renderer = UploadRenderer(mode: mode)
            renderer.begin(firmware, target: targetName)
            let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run {
                renderer.handle($0)
            }
            switch outcome {
            case .completed(let summary):
                renderer.finish(summary)
                return .completed
            case .failed(let error, let transportError):
                let failure = UploadFailure(error: error, transportError: transportError)
                renderer.fail(failure.description, status: failure.exitStatus)
                return .failed(failure)
            }
        }
        Interrupts.onFirstInterrupt { upload.cancel() }
        if case .failed(let failure) = await upload.value { throw failure }
    }

    private func loadInput(defaultProtocol: FirmwareInput.ProtocolFamily) throws -> FirmwareInput {
        let options = try initPacketOptions.generationOptions(defaultProtocol: defaultProtocol)
        let isFile = input == "-" || FileManager.default.fileExists(atPath: input)
        guard isFile else {
            let catalog = try catalogOptions.load()
            guard let entry = catalog.entry(id: input) else {
                throw CatalogError.unknownID(input, known: catalog.entries.map(\.id))
            }
            return try FirmwareInput(entry: entry, options: options)
        }
        let source = try InputFile(path: input)
        let bytes = try source.readAll()
        switch ImageFormat(path: input, contents: bytes) {
        case .package: return try FirmwareInput(zip: bytes, name: source.displayName)
        case .intelHex: return try FirmwareInput(hex: bytes, name: source.displayName, options: options)
        case .binary: return try FirmwareInput(binary: bytes, name: source.displayName, options: options)
        }
    }
}

/// How the upload task ended.
enum UploadResult: Sendable {
    case completed
    case failed(UploadFailure)
}

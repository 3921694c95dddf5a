import ArgumentParser
import Catalog
import Checksums
import DFUController
import DFUSimulator
import DFUTargetAdapter
import FoundationEssentials
import MCUbootImage
import MCUbootPackage
import SMP
import SMPSimulator
import SMPTargetAdapter

extension UploadCommand {
    /// Rejects `--sim-fault` kinds the SMP device does not simulate (exit 64, before anything runs).
    func validateSMPSimulation() throws {
        for text in simulatorOptions.simFault {
            if let reason = SimulatedSMPTransport.unsupportedReason(try FaultSpecification.parse(text)) {
                throw ValidationError("--sim-fault '\(text)' \(reason)")
            }
        }
    }

    /// `--target sim:smp`: an MCUboot image, or an nRF Connect SDK `dfu_application.zip`, to the in-process
    /// Zephyr/MCUboot SMP device (as many images as the package needs, or `--sim-images`).
    func runSMPSimulated() async throws {
        let input = try loadSMPInput()
        try simulatorOptions.checkImageDirectory()
        let faults = try SimulatorOptions.faultPlan(simulatorOptions.simFault, seed: simulatorOptions.simSeed)
        let imageCount = smpOptions.simImages ?? input.imageCount
        if let outside = input.images.first(where: { $0.number >= imageCount }) {
            throw MCUbootPackageError.badManifest(
                archive: input.name, field: "image_index of '\(outside.name)'",
                problem: "is \(outside.number), but the simulated device updates \(imageCount) image"
                    + (imageCount == 1 ? "" : "s") + " (--sim-images \(imageCount))")
        }
        // A padded image (imgtool --pad or --confirm) is exactly one slot long: the trailer must land at the slot's end.
        let padded = input.images.filter { $0.image.trailer != nil }.map(\.image.bytes.count)
        let largest = input.images.map(\.image.bytes.count).max() ?? 0
        let slotSize = padded.max() ?? max(0x4_0000, largest)
        var deviceConfiguration = SimulatedSMPDevice.Configuration(slotSize: max(slotSize, largest))
        deviceConfiguration.imageCount = imageCount
        if let params = smpOptions.simSmpParams {
            deviceConfiguration.answersParameters = true
            deviceConfiguration.parameters = params.parameters
        }
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        let transport = SimulatedSMPTransport(
            device: SimulatedSMPDevice(configuration: deviceConfiguration, running: running), faults: faults,
            speed: simulatorOptions.simSpeed > 0 ? simulatorOptions.simSpeed : nil)
        do {
            try await uploadSMP(input, named: target ?? "sim:smp", over: transport)
        } catch {
            try Self.saveSlots(of: transport.device, to: simulatorOptions.simSaveImages)
            throw error
        }
        try Self.saveSlots(of: transport.device, to: simulatorOptions.simSaveImages)
    }

    /// `--sim-save-images DIR`: every slot of the simulated device, whole: `slot0.bin` and `slot1.bin` for image 0,
    /// `slot2.bin` and `slot3.bin` for image 1, and so on.
    static func saveSlots(of device: SimulatedSMPDevice, to directory: String?) throws {
        guard let directory else { return }
        for (index, bytes) in device.slots.enumerated() {
            let output = try OutputFile(path: directory + "/slot\(index).bin")
            try output.write(bytes)
            try output.commit()
        }
    }

    /// The input, read once (standard input can be read once only): what goes over SMP, or the bytes for nRF5 DFU.
    enum ReadInput {
        /// A signed MCUboot image, an nRF Connect SDK `dfu_application.zip`, or a catalog entry with `dfu.mcuboot`,
        /// checked (hash, and `--verify-key`) before anything is sent.
        case smp(SMPUpdateInput)
        /// Anything else: the file's bytes for nRF5 DFU, `nil` for a catalog id of an nRF5 DFU image.
        case dfu(contents: [UInt8]?)
    }

    /// Reads the input once and tells SMP from DFU: a file starting with the MCUboot image magic (0x96f3b83d,
    /// little-endian), a zip with an nRF Connect SDK `manifest.json`, or a catalog id whose entry is an MCUboot image
    /// goes over SMP; anything else is for nRF5 DFU.
    func readInput() throws -> ReadInput {
        guard input == "-" || FileManager.default.fileExists(atPath: input) else {
            let catalog = try catalogOptions.load()
            guard let entry = catalog.entry(id: input) else {
                throw CatalogError.unknownID(input, known: catalog.entries.map(\.id))
            }
            guard let mcuboot = entry.mcuboot else { return .dfu(contents: nil) }
            let image = try checkedMCUbootImage(entry.image, file: entry.id)
            return .smp(SMPUpdateInput(image: image, number: mcuboot.imageNumber))
        }
        let source = try InputFile(path: input)
        let bytes = try source.readAll()
        if MCUbootPackage.isPackage(bytes) {
            return .smp(SMPUpdateInput(package: try checkedPackage(bytes, file: source.displayName)))
        }
        let magic = MCUbootImageHeader.magic
        let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: magic >> (8 * $0)) }
        guard bytes.starts(with: littleEndian) else { return .dfu(contents: bytes) }
        return .smp(SMPUpdateInput(image: try checkedMCUbootImage(bytes, file: source.displayName)))
    }

    /// The input for `--target sim:smp`, which takes nothing but SMP updates.
    private func loadSMPInput() throws -> SMPUpdateInput {
        switch try readInput() {
        case .smp(let update): return update
        case .dfu(let contents):
            // An nrfutil zip gets the package reader's own message; any other file the image parser's.
            if let contents, contents.starts(with: [0x50, 0x4B]) {
                _ = try checkedPackage(contents, file: input == "-" ? "<stdin>" : input)
            }
            if let contents { _ = try checkedMCUbootImage(contents, file: input == "-" ? "<stdin>" : input) }
            throw CLIError.dfuInputForSMPTarget(input: input, target: target ?? "sim:smp")
        }
    }

    private func checkedMCUbootImage(_ bytes: [UInt8], file: String) throws -> MCUbootImage {
        let image = try MCUbootImage(bytes: bytes, file: file)
        try image.verifiedHash()
        try verificationKey()?.verify(image)
        return image
    }

    private func checkedPackage(_ bytes: [UInt8], file: String) throws -> MCUbootPackage {
        let key = try verificationKey()
        return try MCUbootPackage(zip: bytes, archive: file) { (image) throws(MCUbootImageError) in
            try key?.verify(image)
        }
    }

    /// `--verify-key`, read.
    private func verificationKey() throws -> MCUbootVerificationKey? {
        guard let path = initPacketOptions.verifyKey else { return nil }
        return try MCUbootVerificationKey(
            pem: String(decoding: try InputFile(path: path).readAll(), as: UTF8.self), file: path)
    }

    /// Runs the SMP machine over `transport`, rendering progress as the DFU uploads do; Ctrl-C cancels it.
    ///
    /// - Parameters:
    ///   - image: The checked image.
    ///   - targetName: The target as the begin line names it.
    ///   - transport: The link.
    ///   - configuration: The policy; `--smp-mode`, `--smp-window`, `--timeout` and `--retries` by default.
    /// - Throws: ``SMPUploadFailure`` when the update did not reach the asked-for state.
    func uploadSMP<Transport: SMPTransport>(
        _ image: MCUbootImage, named targetName: String, over transport: Transport,
        configuration: SMPUploadConfiguration? = nil
    ) async throws {
        let configuration = configuration ?? smpOptions.configuration(engineOptions)
        try await uploadSMP(
            SMPUpdateInput(image: image, number: configuration.image), named: targetName, over: transport,
            configuration: configuration)
    }

    /// Runs the SMP machine over `transport` for every image of `input` (one session, one reset), rendering
    /// progress as the DFU uploads do, one part per image; Ctrl-C cancels it.
    ///
    /// - Parameters:
    ///   - input: The checked image or package.
    ///   - targetName: The target as the begin line names it.
    ///   - transport: The link.
    ///   - configuration: The policy; `--smp-mode`, `--smp-window`, `--timeout` and `--retries` by default.
    /// - Throws: ``SMPUploadFailure`` when the update did not reach the asked-for state.
    func uploadSMP<Transport: SMPTransport>(
        _ input: SMPUpdateInput, named targetName: String, over transport: Transport,
        configuration: SMPUploadConfiguration? = nil
    ) async throws {
        let uploader = SMPUploader(
            images: try input.uploads(), configuration: configuration ?? smpOptions.configuration(engineOptions))
        let mode = renderMode
        let upload = Task { () -> SMPUploadFailure? in
            let renderer = UploadRenderer(mode: mode)
            SMPUploadSummary.begin(input, target: targetName, mode: mode)
            var meter = SMPRateMeter()
            let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
                switch event {
                case .progress(let progress, let elapsed): renderer.handle(meter.report(progress, at: elapsed))
                case .log(let line): renderer.handle(.log(line))
                }
            }
            switch outcome {
            case .completed(let result):
                renderer.fail("", status: .success)
                SMPUploadSummary.finish(result, input: input, mode: mode)
                return nil
            case .failed(let error, let reached):
                let failure = SMPUploadFailure(error: error, deviceWasReached: reached)
                renderer.fail(failure.description, status: failure.exitStatus)
                return failure
            }
        }
        Interrupts.onFirstInterrupt { upload.cancel() }
        if let failure = await upload.value { throw failure }
    }
}

/// An SMP update that did not reach the asked-for state, with its exit status.
struct SMPUploadFailure: Error, Sendable, CustomStringConvertible {
    var error: SMPUploadError
    var deviceWasReached: Bool

    var description: String { "\(error)" }

    var exitStatus: ExitStatus {
        switch error {
        case .cancelled: .interrupted
        case .rejected, .protocolViolation, .unexpectedState: .protocolError
        case .timedOut, .reconnectsExhausted, .unanswered: .temporaryFailure
        case .transport(let failure):
            switch failure.kind {
            case .deviceNotFound: deviceWasReached ? .temporaryFailure : .unavailable
            case .unavailable: .unavailable
            case .linkLost, .timedOut, .failed: .temporaryFailure
            }
        }
    }
}

/// Turns SMP progress into the reports the DFU renderer draws, with a rate over the upload phase.
struct SMPRateMeter {
    private var start: (time: Duration, bytes: Int)?
    private var last: SMPPhase?
    private var lastPart: Int?

    mutating func report(_ progress: SMPProgress, at elapsed: Duration) -> DFUSessionEvent {
        let phase: DFUPhase =
            switch progress.phase {
            case .connecting, .inspecting: .connecting
            case .uploading: .sendingFirmware
            case .settingState, .resetting, .verifying: .validating
            }
        // A new image is a new part: its own phase line, and its own rate.
        let isNewPart = lastPart.map { $0 != progress.part } ?? false
        if isNewPart { start = nil }
        let isNew = isNewPart || (last.map { Self.phase($0) != phase } ?? true)
        last = progress.phase
        lastPart = progress.part
        if progress.phase == .uploading, start == nil { start = (elapsed, progress.bytesConfirmed) }
        var rate: Double?
        var remaining: Duration?
        if let start, elapsed > start.time, progress.bytesConfirmed > start.bytes {
            let seconds =
                Double((elapsed - start.time).components.attoseconds) / 1e18
                + Double((elapsed - start.time).components.seconds)
            let bytesPerSecond = Double(progress.bytesConfirmed - start.bytes) / seconds
            rate = bytesPerSecond
            let left = Double(max(0, progress.totalBytes - progress.bytesConfirmed)) / bytesPerSecond
            remaining = .milliseconds(Int64((left * 1000).rounded()))
        }
        let report = DFUProgressReport(
            DFUProgress(
                phase: phase, part: progress.part, partCount: progress.parts, bytesSent: progress.bytesSent,
                bytesConfirmed: progress.bytesConfirmed, totalBytes: progress.totalBytes),
            elapsed: elapsed, bytesPerSecond: rate, estimatedRemaining: remaining)
        return isNew ? .phase(report) : .progress(report)
    }

    private static func phase(_ phase: SMPPhase) -> DFUPhase {
        switch phase {
        case .connecting, .inspecting: .connecting
        case .uploading: .sendingFirmware
        case .settingState, .resetting, .verifying: .validating
        }
    }
}

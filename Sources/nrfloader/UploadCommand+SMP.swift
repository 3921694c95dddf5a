import ArgumentParser
import Checksums
import DFUController
import DFUSimulator
import DFUTargetAdapter
import FoundationEssentials
import MCUbootImage
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

    /// `--target sim:smp`: an MCUboot image to the in-process Zephyr/MCUboot SMP device.
    func runSMPSimulated() async throws {
        let image = try loadMCUbootImage()
        try simulatorOptions.checkImageDirectory()
        let faults = try SimulatorOptions.faultPlan(simulatorOptions.simFault, seed: simulatorOptions.simSeed)
        // A padded image (imgtool --pad or --confirm) is exactly one slot long: the trailer must land at the slot's end.
        let slotSize = image.trailer != nil ? image.bytes.count : max(0x4_0000, image.bytes.count)
        var deviceConfiguration = SimulatedSMPDevice.Configuration(slotSize: slotSize)
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
            try await uploadSMP(image, named: target ?? "sim:smp", over: transport)
        } catch {
            try saveSlots(of: transport.device)
            throw error
        }
        try saveSlots(of: transport.device)
    }

    /// `--sim-save-images DIR`: the simulated device's two slots as `slot0.bin` and `slot1.bin`, whole.
    private func saveSlots(of device: SimulatedSMPDevice) throws {
        guard let directory = simulatorOptions.simSaveImages else { return }
        for (name, bytes) in [("slot0", device.primary), ("slot1", device.secondary)] {
            let output = try OutputFile(path: directory + "/" + name + ".bin")
            try output.write(bytes)
            try output.commit()
        }
    }

    /// Reads the input as a signed MCUboot image, checks its SHA-256 TLV and, with `--verify-key`, its signature,
    /// before anything is sent.
    private func loadMCUbootImage() throws -> MCUbootImage {
        let source = try InputFile(path: input)
        return try checkedMCUbootImage(try source.readAll(), file: source.displayName)
    }

    /// The input read once for `upload --port`: a checked MCUboot image when it starts with the image magic
    /// (0x96f3b83d, little-endian), which goes over SMP; otherwise its bytes, for DFU (`nil` for a catalog id).
    func serialInput() throws -> (image: MCUbootImage?, contents: [UInt8]?) {
        guard input == "-" || FileManager.default.fileExists(atPath: input) else { return (nil, nil) }
        let source = try InputFile(path: input)
        let bytes = try source.readAll()
        let magic = MCUbootImageHeader.magic
        let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: magic >> (8 * $0)) }
        guard bytes.starts(with: littleEndian) else { return (nil, bytes) }
        return (try checkedMCUbootImage(bytes, file: source.displayName), nil)
    }

    private func checkedMCUbootImage(_ bytes: [UInt8], file: String) throws -> MCUbootImage {
        let image = try MCUbootImage(bytes: bytes, file: file)
        try image.verifiedHash()
        if let path = initPacketOptions.verifyKey {
            let key = try MCUbootVerificationKey(
                pem: String(decoding: try InputFile(path: path).readAll(), as: UTF8.self), file: path)
            try key.verify(image)
        }
        return image
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
        guard let hash = image.storedHash else { throw MCUbootImageError.missingHash(file: image.file) }
        let uploader = SMPUploader(
            image: image.bytes, imageHash: hash, fileSHA256: SHA256.hash(image.bytes),
            configuration: configuration ?? smpOptions.configuration(engineOptions))
        let mode = renderMode
        let upload = Task { () -> SMPUploadFailure? in
            let renderer = UploadRenderer(mode: mode)
            SMPUploadSummary.begin(image, target: targetName, mode: mode)
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
                SMPUploadSummary.finish(result, image: image, mode: mode)
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
        case .timedOut, .reconnectsExhausted: .temporaryFailure
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

    mutating func report(_ progress: SMPProgress, at elapsed: Duration) -> DFUSessionEvent {
        let phase: DFUPhase =
            switch progress.phase {
            case .connecting, .inspecting: .connecting
            case .uploading: .sendingFirmware
            case .settingState, .resetting, .verifying: .validating
            }
        let isNew = last.map { Self.phase($0) != phase } ?? true
        last = progress.phase
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
                phase: phase, part: 1, partCount: 1, bytesSent: progress.bytesSent,
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

/// The begin line and the result of an SMP update, on the DFU uploads' channels: JSON Lines on stdout with `--json`,
/// the result line on stdout otherwise.
enum SMPUploadSummary {
    static func begin(_ image: MCUbootImage, target: String, mode: UploadRenderer.Mode) {
        switch mode {
        case .json:
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("begin"), "input": .string(image.file),
                    "target": .string(target), "protocol": .string("smp"),
                    "parts": .array([
                        .object([
                            "type": .string("application"), "size": .int(image.bytes.count),
                            "version": .string(image.header.version.description),
                            "hash": .string(lowercaseHex(image.storedHash ?? [])),
                        ])
                    ]),
                ]))
        case .terminal, .lines:
            Console.note(
                "uploading \(image.file.escapedForTerminal) (MCUboot image \(image.header.version), "
                    + "\(image.bytes.count) bytes) to \(target.escapedForTerminal) over SMP")
        case .quiet:
            break
        }
    }

    static func finish(_ result: SMPUploadResult, image: MCUbootImage, mode: UploadRenderer.Mode) {
        let slot = result.slot
        // The device's version string and flags come from the device: escaped before they reach a terminal.
        switch mode {
        case .json:
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("result"), "protocol": .string("smp"),
                    "state": .string(result.outcome.rawValue), "bytes_uploaded": .int(result.bytesUploaded),
                    "image": .object([
                        "slot": .int(slot.slot), "version": .string(slot.version),
                        "hash": .string(lowercaseHex(slot.hash)),
                        "active": .bool(slot.isActive), "confirmed": .bool(slot.isConfirmed),
                        "pending": .bool(slot.isPending), "permanent": .bool(slot.isPermanent),
                    ]),
                    "smp": .object([
                        "buf_size": .int(result.parameters.bufferSize),
                        "buf_count": .int(result.parameters.bufferCount),
                        "parameters_reported": .bool(result.parametersReported), "chunk_size": .int(result.chunkSize),
                        "requests_in_flight": .int(result.requestsInFlight), "reconnects": .int(result.reconnects),
                    ]),
                ]))
        case .terminal, .lines, .quiet:
            Console.result(
                "image \(slot.version.escapedForTerminal) (hash \(lowercaseHex(slot.hash.prefix(8)))…) "
                    + "\(result.outcome.rawValue) by the device: slot \(slot.slot), \(slot.flagsDescription); "
                    + "\(result.bytesUploaded) bytes uploaded")
        }
    }
}

import DFUController
import FirmwareInput
import SerialDFU

extension UploadCommand {
    /// Legacy DFU over the three-wire UART transport (SDK ≤ 11, Adafruit's nRF52 bootloader).
    ///
    /// That transport acknowledges packets, not results: the device never reports whether it validated the image.
    /// The result says so instead of claiming a confirmation.
    func runLegacySerial(_ serial: SerialOptions, path: String, firmware: FirmwareInput, parts: [FirmwarePart])
        async throws
    {
        if let rate = serial.touch {
            do { try SerialDFUTransport.touch(path: path, baudRate: rate) } catch {
                throw Self.legacyFailure(.port(error))
            }
            // Adafruit's bootloader needs a moment to come up after the touch (adafruit-nrfutil waits 1.5 s).
            try? await Task.sleep(for: .milliseconds(1500))
        }
        let options = SerialScan.options(path: path, serial)
        var configuration = LegacySerialDFU.Configuration()
        if let timeout = engineOptions.timeout { configuration.acknowledgementTimeout = .seconds(timeout) }
        if let retries = engineOptions.retries { configuration.attempts = retries }
        let json = outputOptions.json
        let quiet = outputOptions.quiet
        let started = ContinuousClock.now
        func event(_ name: String, _ members: [String: JSONValue]) -> JSONValue {
            var members = members
            members["schema"] = .int(JSONValue.schemaVersion)
            members["event"] = .string(name)
            return .object(members)
        }
        if !json && !quiet {
            Console.note("uploading \(firmware.name) to \(path) (legacy serial dfu, \(parts.count) part(s))")
        }
        var sentParts: [(FirmwarePart, Int)] = []
        let upload = Task { () throws(LegacySerialSession.Failure) in
            var lastPercent = -1
            // --timeout is per acknowledgement here; a USB device resetting between parts may take longer.
            let session = LegacySerialSession(
                options: options, configuration: configuration,
                reconnectTimeout: .seconds(max(15, engineOptions.timeout ?? 0)))
            try await session.run(parts: parts) { action in
                switch action {
                case .progress(let part, let sent, let total):
                    let percent = total == 0 ? 100 : sent * 100 / total
                    guard percent / 10 != lastPercent / 10 || sent == 0 else { return }
                    lastPercent = percent
                    if json {
                        Console.json(
                            event(
                                "progress", ["part": .int(part), "bytes_sent": .int(sent), "bytes_total": .int(total)]))
                    } else if !quiet {
                        Console.note("part \(part)/\(parts.count): \(sent)/\(total) bytes acknowledged")
                    }
                case .partSent(let part, let bytes):
                    sentParts.append((parts[part - 1], bytes))
                default: break
                }
            }
            return sentParts
        }
        Interrupts.onFirstInterrupt { upload.cancel() }
        let acknowledged: [(FirmwarePart, Int)]
        do { acknowledged = try await upload.value } catch let failure as LegacySerialSession.Failure {
            let error = Self.legacyFailure(failure)
            if json {
                Console.json(
                    event(
                        "error",
                        ["message": .string("\(error)"), "exit_status": .int(Int(ExitStatus(for: error).rawValue))]))
            }
            throw error
        }
        if json {
            let items = acknowledged.map { part, bytes -> JSONValue in
                .object([
                    "type": .string(part.imageType.description), "protocol": .string("legacy-serial"),
                    "bytes_acknowledged": .int(bytes), "validation": .null,
                ])
            }
            Console.json(
                event("result", ["parts": .array(items), "elapsed_ms": .int(started.duration(to: .now).milliseconds)]))
            return
        }
        for (index, (part, bytes)) in acknowledged.enumerated() {
            Console.result(
                "part \(index + 1)/\(acknowledged.count): \(part.imageType) acknowledged by the device: \(bytes) bytes "
                    + "(legacy serial dfu reports no validation result)")
        }
    }

    private static func legacyFailure(_ failure: LegacySerialSession.Failure) -> any Error {
        let kind: TransportFailureKind
        switch failure {
        case .port(.notFound(let path)): return CLIError.inputMissing(path: path)
        case .cancelled: return UploadFailure(error: .cancelled, deviceWasReached: true)
        case .port: kind = .unavailable
        case .protocolFailure(.noAnswer):
            return UploadFailure(
                error: .transport(
                    TransportFailure(operation: .connect, kind: .deviceNotFound, cause: failure.description)),
                deviceWasReached: false)
        case .vanished, .didNotComeBack: kind = .linkLost
        case .otherDevice: kind = .unavailable
        case .protocolFailure: kind = .timedOut
        }
        return UploadFailure(
            error: .transport(TransportFailure(operation: .link, kind: kind, cause: failure.description)),
            deviceWasReached: true)
    }
}

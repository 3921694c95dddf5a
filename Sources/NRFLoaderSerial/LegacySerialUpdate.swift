import DFUController
import DeviceLink
import NRFLoaderKit
import SerialDFU
import SerialLine

/// Legacy serial DFU (HCI/SLIP, as Adafruit's nRF52 bootloader and the nRF5 SDK 11 serial bootloader speak), part by
/// part: each part its own session, with a reconnection while the device resets in between.
struct LegacySerialUpdate {
    var path: String
    var options: SerialPortOptions
    var update: UpdateOptions

    func run(_ firmware: DFUFirmware, input: String, parts: [DFUFirmware.Part], _ onEvent: (UpdateEvent) -> Void)
        async throws(UpdateError) -> UpdateSummary
    {
        if let rate = options.touchBaudRate {
            do { try SerialDFUTransport.touch(path: path, baudRate: rate) } catch {
                throw Self.failure(.port(error))
            }
            // Adafruit's bootloader needs a moment to come up after the touch (adafruit-nrfutil waits 1.5 s).
            try? await Task.sleep(for: .milliseconds(1500))
        }
        let transportOptions = SerialPorts.options(path: path, options)
        var configuration = LegacySerialDFU.Configuration()
        if let timeout = update.timeoutSeconds { configuration.acknowledgementTimeout = .seconds(timeout) }
        if let retries = update.retries { configuration.attempts = retries }
        let started = ContinuousClock.now
        var plan = DFUSession.plan(firmware, input: input, target: path)
        plan = UpdatePlan(
            input: plan.input, target: path, updateProtocol: "legacy-serial", parts: plan.parts,
            summary: "uploading \(input) to \(path) (legacy serial dfu, \(parts.count) part(s))", json: plan.json)
        onEvent(.begin(plan))
        var acknowledged: [(DFUFirmware.Part, Int)] = []
        var lastPercent = -1
        // The timeout is per acknowledgement here; a USB device resetting between parts may take longer.
        let session = LegacySerialSession(
            options: transportOptions, configuration: configuration,
            reconnectTimeout: .seconds(max(15, update.timeoutSeconds ?? 0)))
        do {
            try await session.run(parts: parts) { action in
                switch action {
                case .progress(let part, let sent, let total):
                    let percent = total == 0 ? 100 : sent * 100 / total
                    guard percent / 10 != lastPercent / 10 || sent == 0 else { return }
                    lastPercent = percent
                    onEvent(
                        .progress(
                            UpdateProgress(legacySerialPart: part, of: parts.count, acknowledged: sent, total: total)))
                case .partSent(let part, let bytes):
                    acknowledged.append((parts[part - 1], bytes))
                default: break
                }
            }
        } catch {
            throw Self.failure(error)
        }
        let elapsed = started.duration(to: .now)
        let json = acknowledged.map { part, bytes -> JSONValue in
            .object([
                "type": .string(part.imageType.description), "protocol": .string("legacy-serial"),
                "bytes_acknowledged": .int(bytes), "validation": .null,
            ])
        }
        let summary = UpdateSummary(
            parts: acknowledged.enumerated().map { index, item in
                UpdateSummary.Part(
                    name: item.0.imageType.description, bytesConfirmed: item.1, crc32: nil, hash: nil,
                    summary: "part \(index + 1)/\(acknowledged.count): \(item.0.imageType) acknowledged by the device: "
                        + "\(item.1) bytes (legacy serial dfu reports no validation result)")
            }, elapsed: elapsed,
            json: .event("result", ["parts": .array(json), "elapsed_ms": .int(elapsed.milliseconds)]),
            detail: .legacySerial)
        onEvent(.result(summary))
        return summary
    }

    private static func failure(_ failure: LegacySerialSession.Failure) -> UpdateError {
        let kind: LinkError.Kind
        switch failure {
        case .port(.notFound(let path)): return UpdateError(FileFailure.inputMissing(path: path))
        case .cancelled: return UpdateError(UpdateFailure(.dfu(.cancelled), deviceWasReached: true))
        case .port: kind = .unavailable
        case .protocolFailure(.noAnswer):
            return UpdateError(
                UpdateFailure(
                    .dfu(
                        .transport(
                            TransportFailure(operation: .connect, kind: .deviceNotFound, cause: failure.description))),
                    deviceWasReached: false)
            ).mentioning([.bootloaderTouch])
        case .vanished, .didNotComeBack: kind = .linkLost
        case .otherDevice: kind = .unavailable
        case .protocolFailure: kind = .timedOut
        }
        return UpdateError(
            UpdateFailure(
                .dfu(.transport(TransportFailure(operation: .link, kind: kind, cause: failure.description))),
                deviceWasReached: true))
    }
}

import NRFLoaderKit

/// One update of one device, as the station keeps it: its event lines, where it stands, and how it ended.
struct StationJob: Sendable {
    /// Where a job stands.
    enum State: String, Sendable {
        /// The update runs.
        case running
        /// The device confirmed the whole update.
        case confirmed
        /// The update completed, and the device holds the image in a state short of confirmed (an SMP test or
        /// upload-only update).
        case completed
        /// The update failed.
        case failed
        /// The job was cancelled and the device told to abort.
        case cancelled
    }

    let id: Int
    let deviceID: String
    let deviceLabel: String
    let firmwareName: String
    let isBluetooth: Bool
    let started: ContinuousClock.Instant
    var state = State.running
    /// The `upload --json` lines so far.
    var lines: [String] = []
    var progress: UpdateProgress?
    /// The confirmation (the device's CRC or hash) or the error message, once ended.
    var message: String?
    var exitStatus: ExitStatus?
    var elapsed: Duration?

    var isEnded: Bool { state != .running }

    /// The job as the API lists it.
    func json(now: ContinuousClock.Instant) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .int(id), "device": .string(deviceID), "device_label": .string(deviceLabel),
            "firmware": .string(firmwareName), "state": .string(state.rawValue),
            "message": .optional(message) { .string($0) },
            "exit_status": .optional(exitStatus) { .int(Int($0.rawValue)) },
            "http_status": .optional(exitStatus) { .int(HTTPStatusMapping.status(for: $0)) },
            "elapsed_ms": .int((elapsed ?? started.duration(to: now)).milliseconds),
        ]
        if let progress {
            members["progress"] = .object([
                "phase": .string(progress.phase.description), "part": .int(progress.part),
                "parts": .int(progress.parts), "bytes_confirmed": .int(progress.bytesConfirmed),
                "total_bytes": .int(progress.totalBytes),
                "bytes_per_second": .optional(progress.bytesPerSecond) { .int(Int($0.rounded())) },
            ])
        } else {
            members["progress"] = .null
        }
        return .object(members)
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}

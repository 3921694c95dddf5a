package import DFUController
package import DFUTargetAdapter
package import DeviceLink
package import SMP

/// Something that happened during an update: the same events, in the same order, as the JSON Lines that
/// `nrfloader upload --json` prints, one ``json`` object each.
///
/// An update emits one ``begin(_:)`` first; then ``phase(_:)`` whenever it enters a new phase or part,
/// ``progress(_:)`` as the device confirms bytes, ``log(_:)`` and ``link(_:)`` lines; and, when the device confirmed
/// everything, one ``result(_:)`` last. A failed update emits no `result`: the call throws an ``UpdateError`` instead.
public enum UpdateEvent: Sendable {
    /// The update starts: what is sent, and to which device.
    case begin(UpdatePlan)
    /// A new phase or a new part starts.
    case phase(UpdateProgress)
    /// More bytes were sent or confirmed.
    case progress(UpdateProgress)
    /// A detail of the session, for logs (a reconnection, a resumed object, a device's answer).
    case log(String)
    /// How the link carried the update (which BlueZ paths, which serial settings): worth a line on a terminal.
    case link(String)
    /// The device confirmed the whole update.
    case result(UpdateSummary)

    /// The event as one JSON object, exactly as `nrfloader upload --json` prints it: compact, keys sorted, with the
    /// `schema` and `event` members.
    public var json: String { jsonValue.text }

    /// The event as the ``JSONValue`` object ``json`` prints: for a program that adds members of its own (a fleet's
    /// `device`) before printing it.
    public var jsonValue: JSONValue {
        switch self {
        case .begin(let plan): plan.json
        case .phase(let progress):
            .event(
                "phase",
                [
                    "phase": .string(progress.phase.description), "part": .int(progress.part),
                    "parts": .int(progress.parts),
                ])
        case .progress(let progress): .event("progress", progress.jsonMembers)
        case .log(let message), .link(let message): .event("log", ["message": .string(message)])
        case .result(let summary): summary.json
        }
    }
}

extension JSONValue {
    /// An event object: `members` with the `schema` and `event` members added.
    package static func event(_ name: String, _ members: [String: JSONValue]) -> JSONValue {
        var members = members
        members["schema"] = .int(JSONValue.schemaVersion)
        members["event"] = .string(name)
        return .object(members)
    }
}

/// What an update is about to send, and where: the ``UpdateEvent/begin(_:)`` event.
public struct UpdatePlan: Sendable {
    /// One image of the update.
    public struct Part: Sendable {
        /// What the image is: `application`, `softdevice`, `bootloader` or `softdevice_bootloader`.
        public let type: String
        /// The image's size in bytes.
        public let size: Int
        /// The size of its init packet in bytes (nRF5 DFU); 0 for SMP, which sends none.
        public let initPacketSize: Int

        package init(type: String, size: Int, initPacketSize: Int = 0) {
            self.type = type
            self.size = size
            self.initPacketSize = initPacketSize
        }
    }

    /// The input's name: a path, `<stdin>`, a catalog id or the name given with the bytes.
    public let input: String
    /// The device as the output names it.
    public let target: String
    /// `dfu` (nRF5 Secure or legacy DFU), `legacy-serial` or `smp` (MCUmgr).
    public let updateProtocol: String
    /// The images, in the order they are sent.
    public let parts: [Part]
    /// The sentence a terminal shows for it, such as `uploading app.zip to sim (…): application 24580 bytes`.
    public let summary: String
    package let json: JSONValue

    package init(input: String, target: String, updateProtocol: String, parts: [Part], summary: String, json: JSONValue)
    {
        self.input = input
        self.target = target
        self.updateProtocol = updateProtocol
        self.parts = parts
        self.summary = summary
        self.json = json
    }
}

/// Where an update stands: the ``UpdateEvent/phase(_:)`` and ``UpdateEvent/progress(_:)`` events.
public struct UpdateProgress: Sendable, Equatable {
    /// The phase, typed for both protocols; its description is the word the command line prints.
    public let phase: UpdatePhase
    /// The part (image) being sent, from 1.
    public let part: Int
    /// How many parts the update has.
    public let parts: Int
    /// Bytes of this part sent so far.
    public let bytesSent: Int
    /// Bytes of this part the device confirmed (by a checksum or an acknowledgement).
    public let bytesConfirmed: Int
    /// The part's size in bytes.
    public let totalBytes: Int
    /// The average transfer rate over the part so far, in confirmed bytes per second, once known.
    public let bytesPerSecond: Double?
    /// The current transfer rate, over about the last second, once known.
    public let currentBytesPerSecond: Double?
    /// The time left for the part at the average rate, once known.
    public let estimatedRemaining: Duration?

    /// Whether the report is one of a few coarse milestones, each worth showing (legacy serial DFU reports the bytes
    /// the device acknowledged every 10 %), rather than one of a stream to throttle.
    public var isMilestone: Bool { style == .legacySerial }

    package enum Style: Sendable, Equatable {
        case standard
        /// Legacy serial DFU's acknowledged-bytes progress, with its own JSON members.
        case legacySerial
    }

    package let style: Style

    package init(_ report: DFUProgressReport) {
        phase = UpdatePhase(report.phase)
        part = report.part
        parts = report.partCount
        bytesSent = report.bytesSent
        bytesConfirmed = report.bytesConfirmed
        totalBytes = report.totalBytes
        bytesPerSecond = report.bytesPerSecond
        currentBytesPerSecond = report.currentBytesPerSecond
        estimatedRemaining = report.estimatedRemaining
        style = .standard
    }

    package init(_ progress: SMPProgress, reading: RateMeter.Reading) {
        phase = UpdatePhase(progress.phase)
        part = progress.part
        parts = progress.parts
        bytesSent = progress.bytesSent
        bytesConfirmed = progress.bytesConfirmed
        totalBytes = progress.totalBytes
        bytesPerSecond = reading.averageBytesPerSecond
        currentBytesPerSecond = reading.currentBytesPerSecond
        estimatedRemaining = reading.estimatedRemaining
        style = .standard
    }

    package init(legacySerialPart part: Int, of parts: Int, acknowledged: Int, total: Int) {
        phase = .sendingFirmware
        self.part = part
        self.parts = parts
        bytesSent = acknowledged
        bytesConfirmed = acknowledged
        totalBytes = total
        bytesPerSecond = nil
        currentBytesPerSecond = nil
        estimatedRemaining = nil
        style = .legacySerial
    }

    package var jsonMembers: [String: JSONValue] {
        if style == .legacySerial {
            return ["part": .int(part), "bytes_sent": .int(bytesSent), "bytes_total": .int(totalBytes)]
        }
        return [
            "part": .int(part), "parts": .int(parts), "phase": .string(phase.description),
            "bytes_sent": .int(bytesSent), "bytes_confirmed": .int(bytesConfirmed), "total_bytes": .int(totalBytes),
            "bytes_per_second": .optional(bytesPerSecond) { .int(Int($0.rounded())) },
            "eta_ms": .optional(estimatedRemaining) { .int($0.milliseconds) },
        ]
    }
}

/// What the device confirmed: the ``UpdateEvent/result(_:)`` event, and what a successful update returns.
public struct UpdateSummary: Sendable {
    /// One confirmed image.
    public struct Part: Sendable {
        /// What the image is (`application`, `softdevice`, …), or for SMP the image number and file.
        public let name: String
        /// The bytes the device confirmed holding (nRF5 DFU) or took (SMP).
        public let bytesConfirmed: Int
        /// The CRC-32 the device reported for the image (Secure DFU), if any.
        public let crc32: UInt32?
        /// The image's SHA-256 as the device reported it (SMP), if any.
        public let hash: [UInt8]?
        /// The sentence a terminal shows for it, such as
        /// `part 1/1: application confirmed by the device: 24580 bytes, CRC-32 0x1a2b3c4d`.
        public let summary: String
        /// The nRF5 DFU protocol that sent the image over Bluetooth or a serial port (Secure or legacy), or `nil`
        /// for SMP and legacy serial DFU.
        public let dfuProtocol: FirmwareOptions.DFUProtocol?

        package init(
            name: String, bytesConfirmed: Int, crc32: UInt32?, hash: [UInt8]?, summary: String,
            dfuProtocol: FirmwareOptions.DFUProtocol? = nil
        ) {
            self.name = name
            self.bytesConfirmed = bytesConfirmed
            self.crc32 = crc32
            self.hash = hash
            self.summary = summary
            self.dfuProtocol = dfuProtocol
        }
    }

    /// The images, in the order they were sent.
    public let parts: [Part]
    /// From the start of the update to the device's last confirmation.
    public let elapsed: Duration
    /// The bytes confirmed over all parts.
    public var bytesConfirmed: Int { parts.reduce(0) { $0 + $1.bytesConfirmed } }
    package let json: JSONValue

    /// What the engine reported, for this package's command line.
    package enum Detail: Sendable {
        case dfu(DFUSummary)
        case smp(SMPUploadResult)
        case legacySerial
    }

    package let detail: Detail

    package init(parts: [Part], elapsed: Duration, json: JSONValue, detail: Detail) {
        self.parts = parts
        self.elapsed = elapsed
        self.json = json
        self.detail = detail
    }

    /// What an SMP update left on the device, as the device's image state showed it at the end; `nil` for nRF5 DFU.
    public var smpOutcome: SMPUpdateOutcome? {
        guard case .smp(let result) = detail else { return nil }
        return SMPUpdateOutcome(result)
    }
}

/// Where an SMP update left its image: the ``UpdateSummary/smpOutcome`` of a completed update.
public struct SMPUpdateOutcome: Sendable {
    /// How an image stands, in the device's words.
    public enum State: String, Sendable, CaseIterable {
        /// Running and confirmed.
        case confirmed
        /// Running in test mode: MCUboot reverts it on the next reset unless it is confirmed.
        case testing
        /// In the secondary slot, pending a permanent swap on the next reset (`upload-only` of an image signed with
        /// `imgtool --confirm`).
        case pendingPermanent = "pending permanent"
        /// In the secondary slot, pending a test swap on the next reset.
        case pendingTest = "pending test"
        /// In the secondary slot, with no swap requested.
        case uploaded
    }

    /// How the image stands (with several images: the first one's).
    public let state: State
    /// The slot that holds it, as the device reported it (with several images: the first one's).
    public let slot: ImageSlot
    /// Image bytes the device acknowledged in this session (0 when it already held the image), all images together.
    public let bytesUploaded: Int
    /// How many times the link was re-established during the update.
    public let reconnects: Int

    init(_ result: SMPUploadResult) {
        state =
            switch result.outcome {
            case .confirmed: .confirmed
            case .testing: .testing
            case .pendingPermanent: .pendingPermanent
            case .pendingTest: .pendingTest
            case .uploaded: .uploaded
            }
        slot = ImageSlot(result.slot)
        bytesUploaded = result.bytesUploaded
        reconnects = result.reconnects
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    package var milliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}

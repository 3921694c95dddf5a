/// Which legacy bootloader generation the target speaks (dfu-protocols.md §1.1).
enum LegacyGeneration: Equatable, Sendable {
    /// SDK ≤ 5: `01` and a 4-byte application size; init packet is a lone `02` plus CRC-16.
    case v1
    /// SDK 6: `01 tt` and 12 bytes of sizes; no Version characteristic; init as v1.
    case v2
    /// SDK 7–11: Version characteristic present; `02 00` … `02 01` init packet, mandatory from 0.5.
    case versioned(UInt16)

    /// Whether the init packet is framed by `02 00` and `02 01` (DFU version 0.5 and later).
    var usesExtendedInit: Bool {
        if case .versioned(let version) = self { version >= 0x0005 } else { false }
    }
}

/// The legacy DFU machine for one part on one connection (dfu-protocols.md §1.10 b).
///
/// Legacy DFU cannot resume: after a lost link the part starts over from Start DFU. When a receipt notification is
/// late or disagrees, the machine asks the target how many bytes it holds (Report Received Image Size); if they are
/// not the bytes sent, or Validate finds a CRC error, the part restarts cleanly: Reset, reconnect, Start DFU.
struct LegacyDFU: Equatable, Sendable {
    /// The steps of one part; each names what the machine is waiting for.
    enum Step: Equatable, Sendable {
        /// Waiting for `10 01` after Start DFU and the size packet.
        case starting(LegacyGeneration)
        /// Waiting for `10 02` after the init packet.
        case initializing(LegacyGeneration)
        /// Streaming the image; waiting for a receipt notification or, after the last packet, `10 03`. `sent` bytes
        /// were handed to the link, the target acknowledged `confirmed` of them.
        case receiving(sent: Int, confirmed: Int)
        /// A receipt was late or disagreed with `sent`: waiting for the answer to Report Received Image Size.
        case reportingSize(sent: Int, confirmed: Int)
        /// Waiting for `10 04` after Validate Firmware.
        case validating
        /// Activate Image and Reset written after `10 04 01`: waiting for the target to reset (the link drops); an
        /// error answer means nothing was activated.
        case activating
    }

    /// The part and policy.
    let context: PartContext
    /// Where the part stands.
    private(set) var step: Step

    private var configuration: DFUConfiguration { context.configuration }
    private var part: DFUFirmware.Part { context.part }

    /// Creates the machine and returns the Start DFU actions, or the reason the part cannot be sent.
    ///
    /// - Parameters:
    ///   - context: The part and policy.
    ///   - generation: The bootloader generation found on the target.
    ///   - now: The current time.
    /// - Returns: The machine and its first actions.
    /// - Throws: ``DFUError/firmwareUnsuitable(_:)`` if the target needs what the part lacks.
    static func begin(context: PartContext, generation: LegacyGeneration, at now: Duration) throws(DFUError)
        -> (LegacyDFU, [DFUAction])
    {
        if case .versioned(let version) = generation, version >= 0x0005, context.part.initPacket.count < 14 {
            throw .firmwareUnsuitable(.initPacketRequired(legacyVersion: version))
        }
        var machine = LegacyDFU(context: context, step: .starting(generation))
        return (machine, [context.progress(.sendingInitPacket)] + machine.start(generation, at: now))
    }

    private mutating func start(_ generation: LegacyGeneration, at now: Duration) -> [DFUAction] {
        step = .starting(generation)
        let size = UInt32(part.image.count)
        let command: [UInt8]
        let sizes: [UInt8]
        switch generation {
        case .v1:
            command = [LegacyOpcode.startDFU.rawValue]
            sizes = LittleEndian.bytes(of: size)
        case .v2, .versioned:
            command = [LegacyOpcode.startDFU.rawValue, part.imageType.legacyImageTypeBits]
            let (softDevice, bootloader, application): (UInt32, UInt32, UInt32) =
                switch part.imageType {
                case .softDevice: (size, 0, 0)
                case .bootloader: (0, size, 0)
                case .softDeviceAndBootloader(let sd, let bl): (UInt32(sd), UInt32(bl), 0)
                case .application: (0, 0, size)
                }
            sizes =
                LittleEndian.bytes(of: softDevice) + LittleEndian.bytes(of: bootloader)
                + LittleEndian.bytes(of: application)
        }
        // The size packet follows Start DFU at once; the single response comes after the target erased flash.
        return [
            .write(.legacyControlPoint, command), .writePackets(.legacyPacket, [sizes]),
            .startTimer(.response, deadline: now + configuration.legacyStartTimeout),
        ]
    }

    /// What the machine waits for, for a timeout error.
    var awaited: DFUTimeoutStep {
        switch step {
        case .starting: .legacyResponse(.startDFU)
        case .initializing: .legacyResponse(.initializeDFUParameters)
        case .receiving(let sent, _):
            sent == part.image.count ? .legacyResponse(.receiveFirmwareImage) : .legacyPacketReceipt
        case .reportingSize: .legacyResponse(.reportReceivedImageSize)
        case .validating: .legacyResponse(.validateFirmware)
        case .activating: .legacyResponse(.activateAndReset)
        }
    }

    /// Handles a Control Point notification.
    ///
    /// - Parameters:
    ///   - bytes: The notification value.
    ///   - now: The current time.
    /// - Returns: What to do next.
    mutating func receive(_ bytes: [UInt8], at now: Duration) -> MachineOutput {
        let notification: LegacyNotification
        do {
            notification = try LegacyNotification.decode(bytes)
        } catch {
            return .failed(.protocolViolation(error))
        }
        switch (step, notification) {
        case (.starting(let generation), .response(.startDFU, let status)):
            return started(generation, status, at: now)
        case (.initializing, .response(.initializeDFUParameters, .success)):
            return .running(beginReceiving(at: now))
        case (.receiving(let sent, let confirmed), .packetReceipt(let received)):
            if sent < part.image.count, matches(received, sent: sent) {
                return .running(
                    [context.progress(.sendingFirmware, sent: sent, confirmed: sent)] + sendRun(from: sent, at: now))
            }
            if matches(received, sent: confirmed) {
                return .running([.log("ignored a stale packet receipt for \(received) bytes")])
            }
            return .running(
                [.log("packet receipt for \(received) bytes, \(sent) sent; asking for the received size")]
                    + reportSize(sent: sent, confirmed: confirmed, at: now))
        case (.receiving(let sent, _), .response(.receiveFirmwareImage, .success)) where sent == part.image.count:
            return .running(validate(sent: sent, at: now))
        case (.reportingSize(let sent, let confirmed), .receivedImageSize(let size)):
            if Int(size) > sent {
                return .failed(.protocolViolation(.offsetBeyondSent(reported: size, sent: sent)))
            }
            if Int(size) < confirmed, size >> 16 != 0 || confirmed <= 0xFFFF {
                // It acknowledged `confirmed` bytes (a receipt, or the size asked before): those cannot vanish. An
                // SDK 5.2 count of the low 16 bits (§1.8) only looks lower past 64 KiB, and restarts below.
                return .failed(
                    .protocolViolation(
                        .offsetBelowConfirmed(.legacyReceivedImageSize, reported: size, confirmed: confirmed)))
            }
            guard Int(size) == sent else {
                return .restart(
                    resetting, reason: "target holds \(size) of the \(sent) bytes sent",
                    error: .timedOut(.legacyPacketReceipt, limit: configuration.responseTimeout))
            }
            if sent == part.image.count { return .running(validate(sent: sent, at: now)) }
            return .running(
                [context.progress(.sendingFirmware, sent: sent, confirmed: sent)] + sendRun(from: sent, at: now))
        case (.reportingSize, .packetReceipt), (.reportingSize, .response(.receiveFirmwareImage, .success)):
            // A late receipt (or the end of the image) overtaken by the size request: its answer decides.
            return .running([.log("ignored a late notification while asking for the received size")])
        case (.validating, .response(.validateFirmware, .success)):
            step = .activating
            return .running([
                .cancelTimer(.response), .write(.legacyControlPoint, [LegacyOpcode.activateAndReset.rawValue]),
                .startTimer(.response, deadline: now + configuration.responseTimeout),
            ])
        case (.validating, .response(.validateFirmware, .crcError)):
            return .restart(
                resetting, reason: "the target found a crc error in the received image",
                error: .rejected(.legacy(.validateFirmware, .crcError)))
        case (.activating, .response(.activateAndReset, .success)):
            // Not a documented answer, and not the reset itself: the link drop confirms the activation.
            return .running([.log("activate and reset answered success; waiting for the reset")])
        case (.initializing, .response(let opcode, let status)) where opcode == .initializeDFUParameters,
            (.receiving, .response(let opcode, let status)) where opcode == .receiveFirmwareImage && status != .success,
            (.validating, .response(let opcode, let status)) where opcode == .validateFirmware,
            (.activating, .response(let opcode, let status)) where opcode == .activateAndReset,
            (.reportingSize, .response(let opcode, let status)) where opcode == .reportReceivedImageSize:
            return .failed(.rejected(.legacy(opcode, status)))
        case (.starting, _), (.initializing, _), (.receiving, _), (.reportingSize, _), (.validating, _),
            (.activating, _):
            return .failed(.protocolViolation(.unsolicited(.legacyControlPoint, received: bytes)))
        }
    }

    /// Handles a response timer: a late receipt (or end of image) asks for the received size; any other late
    /// answer restarts the part on a new connection.
    ///
    /// - Parameter now: The current time.
    /// - Returns: What to do next.
    mutating func responseLate(at now: Duration) -> MachineOutput {
        switch step {
        case .receiving(let sent, let confirmed):
            return .running(
                [.log("no notification after \(sent) bytes; asking for the received size")]
                    + reportSize(sent: sent, confirmed: confirmed, at: now))
        case .starting, .initializing, .reportingSize, .validating, .activating:
            let limit =
                awaited == .legacyResponse(.startDFU) ? configuration.legacyStartTimeout : configuration.responseTimeout
            let error = DFUError.timedOut(awaited, limit: limit)
            return .restart(resetting, reason: "\(error)", error: error)
        }
    }

    /// Handles the link dropping, or a write failing because it dropped.
    ///
    /// - Returns: The part's confirmation if Activate and Reset was written after a successful Validate (the target
    ///   resets to activate), else `nil`.
    func activationAcknowledged() -> PartConfirmation? {
        guard case .activating = step else { return nil }
        let validated = [
            LegacyOpcode.response.rawValue, LegacyOpcode.validateFirmware.rawValue, LegacyStatus.success.rawValue,
        ]
        return PartConfirmation(
            imageType: part.imageType, dfuProtocol: .legacy, bytesConfirmed: part.image.count, crc32: nil,
            evidence: .validateResponse(validated))
    }

    /// The write that makes the target drop what it holds and reset, before a restart on a new connection.
    private var resetting: [DFUAction] { [.write(.legacyControlPoint, [LegacyOpcode.reset.rawValue])] }

    private mutating func reportSize(sent: Int, confirmed: Int, at now: Duration) -> [DFUAction] {
        step = .reportingSize(sent: sent, confirmed: confirmed)
        return [
            .write(.legacyControlPoint, [LegacyOpcode.reportReceivedImageSize.rawValue]),
            context.responseTimer(at: now),
        ]
    }

    private mutating func validate(sent: Int, at now: Duration) -> [DFUAction] {
        step = .validating
        return [
            context.progress(.validating, sent: sent, confirmed: sent),
            .write(.legacyControlPoint, [LegacyOpcode.validateFirmware.rawValue]), context.responseTimer(at: now),
        ]
    }

    private mutating func started(_ generation: LegacyGeneration, _ status: LegacyStatus, at now: Duration)
        -> MachineOutput
    {
        switch status {
        case .success:
            let initPacket = generation.usesExtendedInit ? part.initPacket : Self.bareCRC(of: part.initPacket)
            guard !initPacket.isEmpty else { return .running(beginReceiving(at: now)) }
            step = .initializing(generation)
            let writes = packets(of: initPacket[...], size: configuration.legacyPacketSize)
            let opcode = LegacyOpcode.initializeDFUParameters.rawValue
            if generation.usesExtendedInit {
                return .running(
                    [
                        .write(.legacyControlPoint, [opcode, 0x00]), .writePackets(.legacyPacket, writes),
                        .write(.legacyControlPoint, [opcode, 0x01]), context.responseTimer(at: now),
                    ])
            }
            return .running(
                [
                    .write(.legacyControlPoint, [opcode]), .writePackets(.legacyPacket, writes),
                    context.responseTimer(at: now),
                ])
        case .notSupported where generation == .v2 && part.imageType == .application:
            // An SDK ≤ 5 bootloader refuses the 12-byte size packet; iOS retries with the v1 form (§1.10 b, 2a).
            return .running([.log("start dfu not supported; retrying with the v1 size packet")] + start(.v1, at: now))
        case .invalidState:
            // An earlier update was interrupted and the bootloader kept its state: Android resets it and starts
            // over ("Last upload interrupted. Restarting device").
            return .restart(
                resetting, reason: "the bootloader holds an unfinished update (start dfu answered invalidState)",
                error: .rejected(.legacy(.startDFU, status)))
        case .notSupported, .dataSizeExceedsLimit, .crcError, .operationFailed:
            return .failed(.rejected(.legacy(.startDFU, status)))
        }
    }

    /// The init packet an SDK ≤ 6 bootloader (no Version characteristic) takes: the image's CRC-16 alone, two bytes
    /// in one write after `02` (dfu-protocols.md §1.7: iOS refuses anything else for such targets).
    ///
    /// A 2-byte packet is that CRC already; from an SDK 7+ packet (`dfu_init_packet_t`) the CRC is taken from
    /// after the SoftDevice list (dfu_ver 0.5) or after the zero extension id (0.6). Any other layout carries no
    /// CRC-16, and the optional init packet is left out.
    static func bareCRC(of initPacket: [UInt8]) -> [UInt8] {
        if initPacket.count == 2 { return initPacket }
        guard initPacket.count >= 12 else { return [] }
        let softDevices = Int(initPacket[8]) | Int(initPacket[9]) << 8
        let crcOffset = 10 + 2 * softDevices
        if initPacket.count == crcOffset + 2 { return Array(initPacket[crcOffset...]) }
        if initPacket.count == crcOffset + 6, initPacket[crcOffset..<(crcOffset + 4)].allSatisfy({ $0 == 0 }) {
            return Array(initPacket[(crcOffset + 4)...])
        }
        return []
    }

    private mutating func beginReceiving(at now: Duration) -> [DFUAction] {
        let interval = configuration.legacyPacketReceiptNotificationInterval
        let prn: [DFUAction] =
            interval == 0
            ? []
            : [
                .write(
                    .legacyControlPoint,
                    [LegacyOpcode.packetReceiptNotificationRequest.rawValue] + LittleEndian.bytes(of: interval))
            ]
        return [context.progress(.sendingFirmware)] + prn
            + [.write(.legacyControlPoint, [LegacyOpcode.receiveFirmwareImage.rawValue])] + sendRun(from: 0, at: now)
    }

    private mutating func sendRun(from sent: Int, at now: Duration) -> [DFUAction] {
        let interval = Int(configuration.legacyPacketReceiptNotificationInterval)
        let size = configuration.legacyPacketSize
        let end = interval == 0 ? part.image.count : min(part.image.count, sent + interval * size)
        let run = part.image[sent..<end]
        let writes = packets(of: run, size: size)
        step = .receiving(sent: end, confirmed: sent)
        // A run of `interval` writes that does not end the image ends in a receipt notification.
        let timer =
            end < part.image.count
            ? context.receiptTimer(afterRunOf: writes.count, at: now)
            : context.responseTimer(afterRunOf: run.count, at: now)
        return [.writePackets(.legacyPacket, writes), timer]
    }

    /// Compares a receipt count with the bytes sent; SDK 5.2 reports only the low 16 bits (iOS compares them).
    private func matches(_ received: UInt32, sent: Int) -> Bool {
        received == UInt32(sent) || (received >> 16 == 0 && received & 0xFFFF == UInt32(sent) & 0xFFFF)
    }
}

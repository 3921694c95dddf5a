import Checksums

/// The Secure DFU machine for one part on one connection (dfu-protocols.md §2.8).
///
/// It starts with Select (command) so that it can resume whatever the target already holds, sends and executes
/// the init packet, then sends the image in data objects, checking every checksum and notification against the
/// CRC-32 of what it sent.
struct SecureDFU: Equatable, Sendable {
    /// The steps of one part; each names what the machine is waiting for.
    enum Step: Equatable, Sendable {
        /// Waiting for the answer to Select (command).
        case selectingCommand
        /// Waiting for the answer to Create (command).
        case creatingCommand(attempt: Int)
        /// Waiting for the answer to Set PRN 0, sent before the init packet.
        case disablingReceipts(attempt: Int, from: Int)
        /// Waiting for the checksum of the init packet.
        case checksummingCommand(attempt: Int)
        /// Waiting for the answer to Execute (command).
        case executingCommand
        /// Waiting for the answer to Set PRN with the configured interval.
        case settingReceipts
        /// Waiting for the answer to Select (data).
        case selectingData
        /// Waiting for Execute of an object the target already held complete when the connection started.
        case executingResumed(DataCursor, ChecksumReport)
        /// Waiting for the answer to Create (data).
        case creatingData(DataCursor)
        /// Waiting out the object preparation delay before the object's first packet.
        case preparingData(DataCursor)
        /// Waiting for the packet receipt notification that ends a run.
        case awaitingReceipt(DataCursor)
        /// The receipt notification was late: waiting for the checksum that says where the target stands.
        case checksummingReceipt(DataCursor)
        /// The target holds the run only in part, with a matching CRC: waiting for Set PRN, which restarts its
        /// receipt count, before the rest of the object is sent from where the target stands.
        case restoringReceipts(DataCursor)
        /// Waiting for the checksum after the object's last packet.
        case checksummingData(DataCursor)
        /// Waiting for Execute (data) of a verified object.
        case executingData(DataCursor, ChecksumReport)
    }

    /// The part and policy.
    let context: PartContext
    /// Payload bytes per Packet write: (MTU − 3) rounded down to a multiple of 4 (§2.9).
    let packetSize: Int
    /// Where the part stands.
    private(set) var step: Step
    /// Data objects created on this connection, to apply the preparation delay's scope.
    private var objectsCreated = 0
    /// The end of the last data object executed on this connection (Execute answered success, or 0x08 for an object
    /// the target already held), 0 before any: progress only if it passes what earlier connections reached.
    private(set) var executedOffset = 0
    /// How often the target reported fewer or other bytes than were sent for a data object on this connection: an
    /// object sent again waits the preparation delay, and after two losses every object does
    /// (``DFUConfiguration/PreparationScope/automatic``); one lost packet on the radio changes nothing else.
    private var lossesReported = 0
    /// The last notification handled; the same bytes again are a stale copy (a receipt that came after the
    /// checksum asked for it, or a duplicate), never news.
    private var lastNotification: [UInt8]?
    /// The Control Point request whose answer is due, while it may be asked again (its answer may be lost).
    private var outstanding: OutstandingRequest?
    /// Answers still to come to requests that were asked again, by opcode: one that arrives while the machine
    /// waits for another opcode is late, not unsolicited.
    private var lateAnswers: [UInt8: Int] = [:]

    /// A request that was written and not answered yet.
    struct OutstandingRequest: Equatable, Sendable {
        /// The request's bytes, to write again.
        var bytes: [UInt8]
        /// When the request's answer is overdue for good (``DFUConfiguration/responseTimeout`` after it was sent,
        /// plus the time a preceding run of packets may take): then the connection is given up.
        var deadline: Duration
        /// How many times it was written again.
        var repeats: Int
    }

    /// How many times an unanswered request is written again before the machine waits out its deadline.
    static let maximumRepeats = 3

    /// Creates the machine for a fresh connection.
    ///
    /// - Parameters:
    ///   - context: The part and policy.
    ///   - mtu: The negotiated ATT MTU.
    init(context: PartContext, mtu: Int) {
        self.context = context
        let usable = min(mtu, context.configuration.maximumMTU) - 3
        self.packetSize = max(usable - usable % 4, 20)
        self.step = .selectingCommand
    }

    private var configuration: DFUConfiguration { context.configuration }
    private var initPacket: [UInt8] { context.part.initPacket }
    private var image: [UInt8] { context.part.image }

    /// The first requests after notifications are enabled.
    ///
    /// - Parameter now: The current time.
    /// - Returns: The actions.
    mutating func begin(at now: Duration) -> [DFUAction] {
        request(.selectObject(.command), at: now)
    }

    /// What the machine waits for, for a timeout error.
    var awaited: DFUTimeoutStep {
        switch step {
        case .selectingCommand, .selectingData: .secureResponse(.selectObject)
        case .creatingCommand, .creatingData: .secureResponse(.createObject)
        case .disablingReceipts, .settingReceipts, .restoringReceipts: .secureResponse(.setPacketReceiptNotification)
        case .checksummingCommand, .checksummingData, .checksummingReceipt: .secureResponse(.calculateChecksum)
        case .executingCommand, .executingResumed, .executingData: .secureResponse(.execute)
        case .awaitingReceipt, .preparingData: .securePacketReceipt
        }
    }

    /// The opcode whose response the machine waits for; `nil` while it waits for its own timer.
    private var awaitedOpcode: SecureOpcode? {
        switch step {
        case .selectingCommand, .selectingData: .selectObject
        case .creatingCommand, .creatingData: .createObject
        case .disablingReceipts, .settingReceipts, .restoringReceipts: .setPacketReceiptNotification
        case .checksummingCommand, .checksummingData, .awaitingReceipt, .checksummingReceipt: .calculateChecksum
        case .executingCommand, .executingResumed, .executingData: .execute
        case .preparingData: nil
        }
    }

    /// Handles a Control Point notification.
    ///
    /// - Parameters:
    ///   - bytes: The notification value.
    ///   - now: The current time.
    /// - Returns: What to do next.
    mutating func receive(_ bytes: [UInt8], at now: Duration) -> MachineOutput {
        guard bytes != lastNotification else {
            // The same answer to a request that was asked again is one of the late answers it was owed.
            if bytes.count >= 2, let late = lateAnswers[bytes[1]], late > 0 { lateAnswers[bytes[1]] = late - 1 }
            return .running([.log("ignored a repeated notification '\(hexBytes(bytes))'")])
        }
        lastNotification = bytes
        if bytes.count >= 2, bytes[0] == SecureOpcode.response.rawValue, bytes[1] != awaitedOpcode?.rawValue,
            let late = lateAnswers[bytes[1]], late > 0
        {
            // The answer to a request that was asked again, arriving after the machine moved on.
            lateAnswers[bytes[1]] = late - 1
            return .running([.log("ignored a late answer '\(hexBytes(bytes))' to a repeated request")])
        }
        let repeated = (outstanding?.repeats ?? 0) > 0
        outstanding = nil
        guard let opcode = awaitedOpcode else {
            // Create (data) was answered and nothing is outstanding: any notification now is unsolicited.
            return .failed(.protocolViolation(.unsolicited(.secureControlPoint, received: bytes)))
        }
        let response: SecureResponse
        do {
            response = try SecureResponse.decode(bytes, answering: opcode)
        } catch {
            return .failed(.protocolViolation(error))
        }
        if case .rejected(let result, let extended) = response {
            if case .executingResumed(let cursor, let report) = step, result == .operationNotPermitted,
                report.offset < UInt32(image.count)
            {
                // SDK 15–17 answer 0x08 to Execute of an object they already executed (IOS-DFU-Library#270).
                executedOffset = Int(report.offset)
                return .running([.log("object \(cursor.object) was already executed")] + next(after: cursor, at: now))
            }
            if repeated, opcode == .execute, result == .operationNotPermitted {
                // Execute was written again because its answer was lost: the first one executed the object.
                return handle(.success, at: now).prepending(
                    .log("execute was answered 0x08 when repeated: the first one executed the object"))
            }
            return .failed(.rejected(.secure(opcode, result, extended)))
        }
        return handle(response, at: now)
    }

    /// Handles a response timer that expired while a run's receipt notification was due: asks the target for its
    /// offset and CRC (the packet or the notification may be lost), as Nordic's libraries do.
    ///
    /// - Parameter now: The current time.
    /// - Returns: The checksum request, or `nil` if the machine was waiting for a response, not a receipt.
    mutating func receiptLate(at now: Duration) -> MachineOutput? {
        guard case .awaitingReceipt(let cursor) = step else { return nil }
        step = .checksummingReceipt(cursor)
        return .running(
            [.log("no packet receipt notification after \(cursor.sent) bytes; asking for the checksum")]
                + request(.calculateChecksum, at: now))
    }

    /// Handles a response timer that expired while a request's answer was due: writes the request again.
    ///
    /// Every Secure request the machine sends either asks where the target stands or can be repeated (Execute of an
    /// executed object is answered 0x08), so a lost notification costs a round trip, not the whole
    /// ``DFUConfiguration/responseTimeout`` and a reconnection. Up to ``maximumRepeats`` times, each after
    /// ``DFUConfiguration/receiptMargin``; then the machine waits for an answer until the request's deadline.
    ///
    /// - Parameter now: The current time.
    /// - Returns: What to do, or `nil` when the answer is overdue for good (or nothing was asked).
    mutating func responseLate(at now: Duration) -> MachineOutput? {
        guard var request = outstanding, awaitedOpcode != nil, now < request.deadline, let opcode = request.bytes.first
        else { return nil }
        guard request.repeats < Self.maximumRepeats else {
            // Asked often enough: a slow device may still answer (a validation, an erase) until the deadline.
            return .running([.startTimer(.response, deadline: request.deadline)])
        }
        request.repeats += 1
        outstanding = request
        lateAnswers[opcode, default: 0] += 1
        let name = SecureOpcode(rawValue: opcode).map { "\($0)" } ?? hexByte(opcode)
        return .running(
            [
                .log("no answer to \(name) yet; asking again (\(request.repeats) of \(Self.maximumRepeats))"),
                .write(.secureControlPoint, request.bytes),
                .startTimer(.response, deadline: min(request.deadline, now + configuration.receiptMargin)),
            ])
    }

    /// Handles the expiry of the object preparation delay.
    ///
    /// - Parameter now: The current time.
    /// - Returns: What to do next, or `nil` if the machine was not waiting for it.
    mutating func preparationElapsed(at now: Duration) -> MachineOutput? {
        guard case .preparingData(let cursor) = step else { return nil }
        return .running(sendRun(cursor, at: now))
    }

    private mutating func handle(_ response: SecureResponse, at now: Duration) -> MachineOutput {
        switch (step, response) {
        case (.selectingCommand, .objectInfo(let info)):
            return selectedCommand(info, at: now)
        case (.creatingCommand(let attempt), .success):
            step = .disablingReceipts(attempt: attempt, from: 0)
            return .running(request(.setPacketReceiptNotification(0), at: now))
        case (.disablingReceipts(let attempt, let from), .success):
            step = .checksummingCommand(attempt: attempt)
            let writes = packets(of: initPacket[from...], size: packetSize)
            return .running(
                [.writePackets(.securePacket, writes)]
                    + request(.calculateChecksum, afterRunOf: writes.count, bytes: initPacket.count - from, at: now))
        case (.checksummingCommand(let attempt), .checksum(let report)):
            let expected = CRC32.checksum(initPacket)
            if report.offset == UInt32(initPacket.count), report.crc == expected {
                step = .executingCommand
                return .running(request(.execute, at: now))
            }
            let mismatch = CRCMismatch(
                objectType: .command, objectIndex: 0, attempts: attempt, expectedOffset: UInt32(initPacket.count),
                expectedCRC: expected, reportedOffset: report.offset, reportedCRC: report.crc)
            guard attempt < configuration.attemptsPerObject else { return .failed(.crcMismatchPersisted(mismatch)) }
            step = .creatingCommand(attempt: attempt + 1)
            return .running(
                [.log("init packet checksum mismatch, attempt \(attempt) of \(configuration.attemptsPerObject)")]
                    + request(.createObject(.command, size: UInt32(initPacket.count)), at: now))
        case (.executingCommand, .success):
            step = .settingReceipts
            return .running(
                request(.setPacketReceiptNotification(configuration.packetReceiptNotificationInterval), at: now))
        case (.settingReceipts, .success):
            step = .selectingData
            return .running(request(.selectObject(.data), at: now))
        case (.selectingData, .objectInfo(let info)):
            return selectedData(info, at: now)
        case (.executingResumed(let cursor, let report), .success):
            executedOffset = Int(report.offset)
            if report.offset == UInt32(image.count) {
                return .partComplete([], confirmation(report, reportedBy: .selectObject))
            }
            return .running(next(after: cursor, at: now))
        case (.creatingData(let cursor), .success):
            objectsCreated += 1
            let delay = configuration.objectPreparationDelay
            let applies = configuration.objectPreparationScope.applies(
                toObject: objectsCreated, packetSize: packetSize, afterLoss: cursor.attempt > 1 || lossesReported >= 2)
            guard applies, delay > .zero else { return .running(sendRun(cursor, at: now)) }
            step = .preparingData(cursor)
            return .running([.cancelTimer(.response), .startTimer(.objectPreparation, deadline: now + delay)])
        case (.awaitingReceipt(let cursor), .checksum(let report)),
            (.checksummingReceipt(let cursor), .checksum(let report)):
            if let retry = verify(report, against: cursor, at: now) { return retry }
            var held = cursor
            held.confirmed = cursor.sent
            let end = cursor.plan.range(of: cursor.object).upperBound
            let confirmed = context.progress(.sendingFirmware, sent: cursor.sent, confirmed: Int(report.offset))
            guard cursor.sent == end else { return .running([confirmed] + sendRun(held, at: now)) }
            step = .checksummingData(held)
            return .running([confirmed] + request(.calculateChecksum, at: now))
        case (.checksummingData(let cursor), .checksum(let report)):
            if let retry = verify(report, against: cursor, at: now) { return retry }
            step = .executingData(cursor, report)
            let isLast = cursor.object == cursor.plan.count - 1
            return .running(
                (isLast ? [context.progress(.validating, sent: cursor.sent, confirmed: Int(report.offset))] : [])
                    + request(.execute, at: now))
        case (.restoringReceipts(let cursor), .success):
            return .running(sendRun(cursor, at: now))
        case (.executingData(let cursor, let report), .success):
            executedOffset = Int(report.offset)
            if cursor.object == cursor.plan.count - 1 {
                return .partComplete([], confirmation(report, reportedBy: .calculateChecksum))
            }
            let progress = context.progress(.sendingFirmware, sent: cursor.sent, confirmed: Int(report.offset))
            return .running([progress] + next(after: cursor, at: now))
        case (_, _):
            // A success answer of the wrong shape cannot happen: decode() returns the payload that belongs to
            // the awaited opcode. Anything else here is a programmer error.
            preconditionFailure("secure dfu step \(step) cannot handle \(response)")
        }
    }

    private mutating func selectedCommand(_ info: ObjectInfo, at now: Duration) -> MachineOutput {
        guard UInt32(initPacket.count) <= info.maximumSize else {
            return .failed(.firmwareUnsuitable(.initPacketTooLarge(size: initPacket.count, maximum: info.maximumSize)))
        }
        let offset = Int(info.offset)
        let phase = context.progress(.sendingInitPacket)
        if configuration.isResumeEnabled, offset > 0, offset <= initPacket.count,
            info.crc == CRC32.checksum(Array(initPacket[..<offset]))
        {
            if offset == initPacket.count {
                step = .executingCommand
                return .running(
                    [phase, .log("target holds the whole init packet; executing it")] + request(.execute, at: now))
            }
            step = .disablingReceipts(attempt: 1, from: offset)
            return .running(
                [phase, .log("resuming init packet at offset \(offset)")]
                    + request(.setPacketReceiptNotification(0), at: now))
        }
        step = .creatingCommand(attempt: 1)
        return .running([phase] + request(.createObject(.command, size: UInt32(initPacket.count)), at: now))
    }

    private mutating func selectedData(_ info: ObjectInfo, at now: Duration) -> MachineOutput {
        let objectSize = Int(info.maximumSize)
        guard objectSize > 0, objectSize % 4 == 0 else {
            return .failed(.protocolViolation(.unusableObjectSize(.data, info.maximumSize)))
        }
        let plan = ObjectPlan(objectSize: objectSize, imageSize: image.count)
        let offset = Int(info.offset)
        let phase = context.progress(.sendingFirmware, sent: 0, confirmed: 0)
        guard configuration.isResumeEnabled, offset > 0 else {
            let first = DataCursor(plan: plan, object: 0, attempt: 1, sent: 0, crc: CRC32(), confirmed: 0)
            return .running([phase] + create(first, at: now))
        }
        let matches = offset <= image.count && CRC32.checksum(Array(image[..<offset])) == info.crc
        guard matches else {
            // The bytes since the last executed object are not ours: send that object again (§2.8 step 5).
            let object = min(offset % objectSize == 0 ? offset / objectSize - 1 : offset / objectSize, plan.count - 1)
            let start = plan.range(of: object).lowerBound
            // Where the target's last executed object ends is unknown: nothing it reports is below what it confirmed.
            let cursor = DataCursor(
                plan: plan, object: object, attempt: 1, sent: start, crc: CRC32.init(continuingFrom: crc(upTo: start)),
                confirmed: 0)
            return .running(
                [phase, .log("target holds \(offset) bytes with another checksum; resending object \(object)")]
                    + create(cursor, at: now))
        }
        let report = ChecksumReport(offset: info.offset, crc: info.crc)
        let resumed = context.progress(.sendingFirmware, sent: offset, confirmed: offset)
        if offset % objectSize == 0 || offset == image.count {
            // The object ending here may not have been executed before the link dropped (§2.8 step 4b).
            let object = (offset - 1) / objectSize
            let cursor = DataCursor(
                plan: plan, object: object, attempt: 1, sent: offset, crc: CRC32(continuingFrom: info.crc),
                confirmed: offset)
            step = .executingResumed(cursor, report)
            return .running(
                [resumed, .log("target holds \(offset) bytes; executing object \(object)")] + request(.execute, at: now)
            )
        }
        // In the middle of an object whose bytes match: send the rest of it without Create (§2.8 step 4c).
        let cursor = DataCursor(
            plan: plan, object: offset / objectSize, attempt: 1, sent: offset, crc: CRC32(continuingFrom: info.crc),
            confirmed: offset)
        return .running([resumed, .log("resuming data at offset \(offset)")] + sendRun(cursor, at: now))
    }

    /// Returns the actions after object `cursor.object` was executed: create the next one, or finish the part.
    private mutating func next(after cursor: DataCursor, at now: Duration) -> [DFUAction] {
        let following = DataCursor(
            plan: cursor.plan, object: cursor.object + 1, attempt: 1, sent: cursor.sent, crc: cursor.crc,
            confirmed: cursor.sent)
        return create(following, at: now)
    }

    private mutating func create(_ cursor: DataCursor, at now: Duration) -> [DFUAction] {
        step = .creatingData(cursor)
        let size = UInt32(cursor.plan.range(of: cursor.object).count)
        return request(.createObject(.data, size: size), at: now)
    }

    /// Writes the next run of packets: up to the PRN interval, or the rest of the object.
    private mutating func sendRun(_ cursor: DataCursor, at now: Duration) -> [DFUAction] {
        var cursor = cursor
        let end = cursor.plan.range(of: cursor.object).upperBound
        let interval = Int(configuration.packetReceiptNotificationInterval)
        let runEnd = interval == 0 ? end : min(end, cursor.sent + interval * packetSize)
        let run = image[cursor.sent..<runEnd]
        let writes = packets(of: run, size: packetSize)
        cursor.crc.update(run)
        cursor.sent = runEnd
        // The target notifies after every `interval` writes since Create or Set PRN; a run shorter than the
        // interval can only end the object, and its last write triggers no notification.
        if interval > 0, writes.count == interval {
            step = .awaitingReceipt(cursor)
            return [.writePackets(.securePacket, writes), context.receiptTimer(afterRunOf: writes.count, at: now)]
        }
        step = .checksummingData(cursor)
        return [.writePackets(.securePacket, writes)]
            + request(.calculateChecksum, afterRunOf: writes.count, bytes: run.count, at: now)
    }

    /// Checks a checksum report against what was sent; returns the recovery or failure if it disagrees.
    ///
    /// When the target holds a prefix of the object with a matching CRC (the run's last packets were lost), the
    /// object continues from there after Set PRN restarts the target's receipt count; when its CRC is wrong, or it
    /// holds more than was sent (a duplicated packet), the object is created again (dfu-protocols.md §2.8 step 5).
    /// Either costs an attempt of ``DFUConfiguration/attemptsPerObject``. An offset below what the target confirmed
    /// on this connection (``DataCursor/confirmed``) is a protocol violation: it is never followed back.
    private mutating func verify(_ report: ChecksumReport, against cursor: DataCursor, at now: Duration)
        -> MachineOutput?
    {
        guard report.offset != UInt32(cursor.sent) || report.crc != cursor.crc.value else { return nil }
        guard report.offset >= UInt32(cursor.confirmed) else {
            // Bytes the target confirmed (an executed object, or a matching report since Create) cannot vanish
            // within a connection: following the lower offset would resend what it already accepted, forever.
            return .failed(
                .protocolViolation(
                    .offsetBelowConfirmed(
                        .dataObject(cursor.object), reported: report.offset, confirmed: cursor.confirmed)))
        }
        lossesReported += 1
        let mismatch = CRCMismatch(
            objectType: .data, objectIndex: cursor.object, attempts: cursor.attempt,
            expectedOffset: UInt32(cursor.sent),
            expectedCRC: cursor.crc.value, reportedOffset: report.offset, reportedCRC: report.crc)
        guard cursor.attempt < configuration.attemptsPerObject else { return .failed(.crcMismatchPersisted(mismatch)) }
        let start = cursor.plan.range(of: cursor.object).lowerBound
        let attempt = "attempt \(cursor.attempt) of \(configuration.attemptsPerObject)"
        let offset = Int(report.offset)
        if offset >= start, offset < cursor.sent, report.crc == crc(upTo: offset) {
            let resumed = DataCursor(
                plan: cursor.plan, object: cursor.object, attempt: cursor.attempt + 1, sent: offset,
                crc: CRC32(continuingFrom: report.crc), confirmed: offset)
            step = .restoringReceipts(resumed)
            return .running(
                [
                    .log(
                        "data object \(cursor.object): target holds \(offset) of \(cursor.sent) bytes sent, crc "
                            + "matches; continuing from \(offset), \(attempt)")
                ]
                    + request(.setPacketReceiptNotification(configuration.packetReceiptNotificationInterval), at: now))
        }
        // Create rewinds the target to the end of its last executed object (§2.6).
        let retry = DataCursor(
            plan: cursor.plan, object: cursor.object, attempt: cursor.attempt + 1, sent: start,
            crc: CRC32(continuingFrom: crc(upTo: start)), confirmed: min(cursor.confirmed, start))
        let note = DFUAction.log(
            "data object \(cursor.object) checksum mismatch (offset \(report.offset) crc \(hex32(report.crc)), "
                + "expected \(cursor.sent) \(hex32(cursor.crc.value))), \(attempt)")
        return .running([note] + create(retry, at: now))
    }

    private func crc(upTo offset: Int) -> UInt32 {
        CRC32.checksum(Array(image[..<offset]))
    }

    private func confirmation(_ report: ChecksumReport, reportedBy opcode: SecureOpcode) -> PartConfirmation {
        PartConfirmation(
            imageType: context.part.imageType, dfuProtocol: .secure, bytesConfirmed: Int(report.offset),
            crc32: report.crc, evidence: .reportedChecksum(opcode, crc32: report.crc))
    }

    /// Writes a Control Point request and arms its timer: the request may be written again once an answer is
    /// late (``DFUConfiguration/packetWriteAllowance`` per preceding packet plus ``DFUConfiguration/receiptMargin``,
    /// as for a receipt), and is overdue for good after ``DFUConfiguration/responseTimeout`` (plus the writing time
    /// of a preceding run of `bytes`).
    private mutating func request(
        _ request: SecureRequest, afterRunOf packets: Int = 0, bytes: Int = 0, at now: Duration
    ) -> [DFUAction] {
        let deadline = context.responseDeadline(afterRunOf: bytes, at: now)
        outstanding = OutstandingRequest(bytes: request.encoded, deadline: deadline, repeats: 0)
        let late = now + configuration.packetWriteAllowance * packets + configuration.receiptMargin
        return [.write(.secureControlPoint, request.encoded), .startTimer(.response, deadline: min(late, deadline))]
    }
}

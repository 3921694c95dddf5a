/// The sans-IO SMP image update: events in, ``SMPAction``s out, no I/O and no clock (style §19–21).
///
/// The update, as Zephyr's image management and MCUboot expect it:
/// 1. connect; read MCUmgr parameters (rc 8, "not supported", means Zephyr's defaults); read the image state;
/// 2. upload in chunks sized by ``SMPChunkPlanner``; the first carries `len` and `sha`; the device's `off` is
///    authoritative: a chunk it did not take is sent again from the offset it names, and after a lost link the
///    upload goes on from the last offset it reported (never below it). Up to `buf_count` − 1 requests are in flight
///    once the first answer has come;
/// 3. by ``SMPConfirmMode``: mark for test or confirm, reset, reconnect, read the state, confirm a tested image once
///    it runs. An image that is already pending permanently (signed with `imgtool --confirm`) is never asked for
///    test: the device would refuse with `IMAGE_ALREADY_PENDING` (28).
///
/// Every decision after a (re)connection starts from the device's image state, so a lost link, a reset or a
/// device that already holds the image all go through the same ``decide(_:at:)``. The result is reported only from
/// the device's own state.
public struct SMPUploader: Sendable {
    /// The file sent, byte for byte.
    private let image: [UInt8]
    /// The image's SHA-256 TLV: the hash the device's image state names it by.
    private let imageHash: [UInt8]
    /// SHA-256 of the whole file: the first chunk's `sha`, which lets the device resume an interrupted upload.
    private let fileSHA256: [UInt8]
    private let configuration: SMPUploadConfiguration
    private var state: State = .idle
    private var session = Session()

    /// Where the machine is.
    private enum State: Sendable {
        /// Not started.
        case idle
        /// A connection attempt is under way.
        case connecting
        /// Waiting for the link to go down before connecting again.
        case awaitingLinkLoss
        /// One request other than an upload chunk is out.
        case awaiting(Request, sequence: UInt8)
        /// Upload chunks are out.
        case uploading(Upload)
        /// The device answered reset; waiting for it to drop the link.
        case resetting
        /// Finished or failed; accepts nothing further.
        case ended
    }

    /// A request other than an upload chunk.
    private enum Request: Sendable, Equatable {
        case parameters
        case readState
        case writeState(confirm: Bool)
        case reset

        var command: SMPCommand {
            switch self {
            case .parameters: .parameters
            case .readState: .readImageState
            case .writeState: .writeImageState
            case .reset: .reset
            }
        }
    }

    /// The chunks in flight, oldest first, and the next offset to send.
    private struct Upload: Sendable {
        var inFlight: [Chunk] = []
        var nextOffset: Int
    }

    private struct Chunk: Sendable {
        var sequence: UInt8
        var offset: Int
        var length: Int
        /// Sent before the device named another offset: its answer is read but does not rewind again.
        var isSuperseded = false
    }

    /// What outlives a connection.
    private struct Session: Sendable {
        var mtu = 23
        var parameters: MCUmgrParameters?
        var parametersReported = false
        var nextSequence: UInt8 = 0
        /// The last `off` the device reported: the upload resumes here.
        var deviceOffset = 0
        var bytesSent = 0
        var bytesUploaded = 0
        var uploadCompleted = false
        var hasReset = false
        /// The state write last sent, to notice a device that accepts it without changing state.
        var lastStateWrite: Bool?
        var reconnectsInRow = 0
        var reconnects = 0
        var hasConnected = false
        var largestChunk = 0
        var mostInFlight = 0
    }

    /// Creates the machine.
    ///
    /// - Parameters:
    ///   - image: The signed image file, sent byte for byte.
    ///   - imageHash: Its SHA-256 TLV (`MCUbootImage.storedHash`).
    ///   - fileSHA256: SHA-256 of the whole file.
    ///   - configuration: The policy.
    public init(image: [UInt8], imageHash: [UInt8], fileSHA256: [UInt8], configuration: SMPUploadConfiguration) {
        precondition(image.count >= 32, "an MCUboot image of \(image.count) bytes has no header")
        self.image = image
        self.imageHash = imageHash
        self.fileSHA256 = fileSHA256
        self.configuration = configuration
    }

    /// Whether the device was ever connected, for the exit status of a failure.
    public var deviceWasReached: Bool { session.hasConnected }

    // MARK: - Inputs

    /// Starts the update.
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    public mutating func start(at now: Duration) -> [SMPAction] {
        guard case .idle = state else { preconditionFailure("start(at:) in state \(state)") }
        return connect(at: now)
    }

    /// The transport connected.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU (or the serial frame limit).
    ///   - now: Session time.
    /// - Returns: The actions.
    public mutating func connected(mtu: Int, at now: Duration) -> [SMPAction] {
        guard case .connecting = state else {
            preconditionFailure("connected(mtu:at:) in state \(state)")
        }
        session.mtu = mtu
        session.hasConnected = true
        var actions: [SMPAction] = [.cancelTimer(.connection), .log("connected, MTU \(mtu)")]
        if session.parameters == nil {
            actions += send(.parameters, phase: .inspecting, at: now)
        } else {
            actions += send(.readState, phase: session.hasReset ? .verifying : .inspecting, at: now)
        }
        return actions
    }

    /// A complete SMP frame arrived (the transport reassembles a frame spread over notifications or lines).
    ///
    /// - Parameters:
    ///   - bytes: The frame.
    ///   - now: Session time.
    /// - Returns: The actions.
    public mutating func receive(_ bytes: [UInt8], at now: Duration) -> [SMPAction] {
        let frame: SMPFrame
        do {
            frame = try SMPFrame(decoding: bytes)
        } catch {
            return fail(.protocolViolation("answer '\(hexString(bytes.prefix(24)))…': \(error)"))
        }
        guard frame.header.operation.isResponse else {
            return fail(.protocolViolation("device sent a \(frame.header.operation) request, not an answer"))
        }
        switch state {
        case .awaiting(let request, let sequence):
            guard frame.header.sequence == sequence else { return ignoreLate(frame) }
            return answer(to: request, frame, at: now)
        case .uploading(var upload):
            guard let index = upload.inFlight.firstIndex(where: { $0.sequence == frame.header.sequence }) else {
                return ignoreLate(frame)
            }
            let chunk = upload.inFlight.remove(at: index)
            return uploadAnswer(frame, for: chunk, upload: upload, at: now)
        case .connecting, .awaitingLinkLoss, .resetting, .idle:
            // Nothing is out: an answer to a request given up on before a reconnection, or a duplicate.
            return ignoreLate(frame)
        case .ended:
            return []
        }
    }

    /// The link went down (also after a ``SMPAction/disconnect``).
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    public mutating func transportDisconnected(at now: Duration) -> [SMPAction] {
        switch state {
        case .resetting, .awaiting(.reset, _):
            session.hasReset = true
            return [.cancelTimer(.resetDisconnect), .cancelTimer(.response), .log("device reset")] + connect(at: now)
        case .awaitingLinkLoss:
            return connect(at: now)
        case .awaiting, .uploading, .connecting:
            return reconnect(after: "link lost", at: now)
        case .idle:
            preconditionFailure("transportDisconnected(at:) before start")
        case .ended:
            return []
        }
    }

    /// A transport operation failed.
    ///
    /// - Parameters:
    ///   - failure: What failed.
    ///   - now: Session time.
    /// - Returns: The actions.
    public mutating func transportFailed(_ failure: SMPTransportFailure, at now: Duration) -> [SMPAction] {
        switch state {
        case .connecting where session.hasConnected && failure.kind != .unavailable:
            // The device may still be swapping images after a reset, or out of range for a moment.
            return reconnect(after: "connection failed: \(failure.cause)", at: now)
        case .ended:
            return []
        case .idle:
            preconditionFailure("transportFailed(_:at:) before start")
        case .awaiting, .uploading, .resetting, .awaitingLinkLoss, .connecting:
            if failure.kind == .linkLost, session.hasConnected, !isConnecting {
                // The loss itself comes as transportDisconnected next.
                return [.log("write failed: \(failure.cause)")]
            }
            return fail(.transport(failure))
        }
    }

    /// A timer fired.
    ///
    /// - Parameters:
    ///   - timer: The timer.
    ///   - now: Session time.
    /// - Returns: The actions.
    public mutating func timerFired(_ timer: SMPTimer, at now: Duration) -> [SMPAction] {
        switch (timer, state) {
        case (.connection, .connecting):
            return fail(.timedOut(waitingFor: "the connection", limit: configuration.connectionTimeout))
        case (.response, .awaiting(let request, _)):
            return retryAfterTimeout(waitingFor: "the answer to \(request.command)", at: now)
        case (.response, .uploading(let upload)):
            let offset = upload.inFlight.first?.offset ?? session.deviceOffset
            return retryAfterTimeout(waitingFor: "the answer to image upload at offset \(offset)", at: now)
        case (.resetDisconnect, .resetting):
            state = .awaitingLinkLoss
            session.hasReset = true
            return [.log("device kept the link after reset; disconnecting"), .disconnect]
        case (_, .ended):
            return []
        default:
            // A timer that outlived its state (cancelled in the same list that it fired): nothing to do.
            return []
        }
    }

    /// The user interrupted.
    ///
    /// SMP has no abort: the device keeps what it holds, and the next run resumes.
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    public mutating func cancel(at now: Duration) -> [SMPAction] {
        if case .ended = state { return [] }
        return [.disconnect] + fail(.cancelled)
    }

    // MARK: - Steps

    private var isConnecting: Bool {
        if case .connecting = state { true } else { false }
    }

    private mutating func connect(at now: Duration) -> [SMPAction] {
        state = .connecting
        return [
            .progress(progress(.connecting)), .startTimer(.connection, deadline: now + configuration.connectionTimeout),
            .connect,
        ]
    }

    private mutating func reconnect(after reason: String, at now: Duration) -> [SMPAction] {
        session.reconnectsInRow += 1
        session.reconnects += 1
        guard session.reconnectsInRow <= configuration.maximumReconnects else {
            return fail(.reconnectsExhausted(attempts: configuration.maximumReconnects))
        }
        let resume =
            session.deviceOffset > 0 && !session.uploadCompleted
            ? "; the device reported \(session.deviceOffset) bytes" : ""
        return [.cancelTimer(.response), .log("\(reason); reconnecting\(resume)")] + connect(at: now)
    }

    private mutating func retryAfterTimeout(waitingFor what: String, at now: Duration) -> [SMPAction] {
        guard session.reconnectsInRow < configuration.maximumReconnects else {
            return fail(.timedOut(waitingFor: what, limit: configuration.responseTimeout))
        }
        session.reconnectsInRow += 1
        session.reconnects += 1
        state = .awaitingLinkLoss
        return [
            .log("no answer within \(configuration.responseTimeout) waiting for \(what); reconnecting"), .disconnect,
        ]
    }

    private mutating func nextSequence() -> UInt8 {
        defer { session.nextSequence &+= 1 }
        return session.nextSequence
    }

    private mutating func send(_ request: Request, phase: SMPPhase, at now: Duration) -> [SMPAction] {
        let sequence = nextSequence()
        let wire: SMPRequest
        switch request {
        case .parameters: wire = .parameters
        case .readState: wire = .readImageState
        case .writeState(let confirm): wire = .writeImageState(hash: imageHash, confirm: confirm)
        case .reset: wire = .reset
        }
        state = .awaiting(request, sequence: sequence)
        return [
            .progress(progress(phase)), .send(wire.frame(sequence: sequence, version: configuration.version).encoded()),
            .startTimer(.response, deadline: now + configuration.responseTimeout),
        ]
    }

    private func progress(_ phase: SMPPhase) -> SMPProgress {
        SMPProgress(
            phase: phase, bytesSent: session.bytesSent, bytesConfirmed: session.deviceOffset, totalBytes: image.count)
    }

    private mutating func fail(_ error: SMPUploadError) -> [SMPAction] {
        state = .ended
        return [.cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.resetDisconnect), .fail(error)]
    }

    private func ignoreLate(_ frame: SMPFrame) -> [SMPAction] {
        [.log("ignored an answer to no request in flight (seq \(frame.header.sequence))")]
    }

    /// Checks an answer's group and command against the request, and reads its error.
    private func check(_ frame: SMPFrame, answers command: SMPCommand) -> Result<Void, SMPUploadError> {
        guard frame.header.group == command.group.rawValue, frame.header.command == command.id else {
            return .failure(
                .protocolViolation(
                    "answer with seq \(frame.header.sequence) is for group \(frame.header.group) command "
                        + "\(frame.header.command), not \(command)"))
        }
        do {
            if let error = try SMPResponse.error(in: frame.body) { return .failure(.rejected(command, error)) }
        } catch {
            return .failure(.protocolViolation("\(command) answer: \(error)"))
        }
        return .success(())
    }

    private mutating func answer(to request: Request, _ frame: SMPFrame, at now: Duration) -> [SMPAction] {
        var actions: [SMPAction] = [.cancelTimer(.response)]
        if case .failure(let error) = check(frame, answers: request.command) {
            guard request == .parameters, case .rejected(_, let deviceError) = error, deviceError.isNotSupported else {
                return fail(error)
            }
            let defaults = configuration.defaultParameters
            session.parameters = defaults
            actions.append(
                .log(
                    "device has no MCUmgr parameters (\(deviceError)); assuming Zephyr's defaults: buf_size "
                        + "\(defaults.bufferSize), buf_count \(defaults.bufferCount)"))
            return actions + send(.readState, phase: .inspecting, at: now)
        }
        switch request {
        case .parameters:
            do {
                let parameters = try MCUmgrParameters(body: frame.body)
                session.parameters = parameters
                session.parametersReported = true
                actions.append(
                    .log("MCUmgr parameters: buf_size \(parameters.bufferSize), buf_count \(parameters.bufferCount)"))
            } catch {
                return fail(.protocolViolation("MCUmgr parameters answer: \(error)"))
            }
            return actions + send(.readState, phase: .inspecting, at: now)
        case .readState, .writeState:
            let slots: ImageStateResponse
            do {
                slots = try ImageStateResponse(body: frame.body)
            } catch {
                return fail(.protocolViolation("\(request.command) answer: \(error)"))
            }
            session.reconnectsInRow = 0
            actions.append(.log("image state: " + Self.describe(slots)))
            if case .writeState(let confirm) = request {
                session.lastStateWrite = confirm
            } else {
                session.lastStateWrite = nil
            }
            return actions + decide(slots, at: now)
        case .reset:
            state = .resetting
            return actions + [
                .progress(progress(.resetting)),
                .startTimer(.resetDisconnect, deadline: now + configuration.resetDisconnectTimeout),
            ]
        }
    }

    /// The next step from the device's image state.
    private mutating func decide(_ slots: ImageStateResponse, at now: Duration) -> [SMPAction] {
        let mode = configuration.mode
        let active = slots.slots.first { $0.isActive && $0.image == configuration.image }
        let ours = slots.slot(withHash: imageHash, image: configuration.image)
        let hash = hexString(imageHash.prefix(8)).replacingSpaces() + "…"
        if let ours, ours.isActive {
            if ours.isConfirmed { return finish(.confirmed, slot: ours) }
            switch mode {
            case .testAndConfirm, .confirm:
                guard session.lastStateWrite != true else {
                    return fail(.unexpectedState("the device accepted confirm but slot \(ours.slot) is not confirmed"))
                }
                return send(.writeState(confirm: true), phase: .settingState, at: now)
            case .test, .uploadOnly:
                return finish(.testing, slot: ours)
            }
        }
        if let ours {
            if session.hasReset {
                let running = active.map { "\($0.version) in slot \($0.slot)" } ?? "no image marked active"
                return fail(
                    .unexpectedState(
                        "after the reset the device runs \(running); the new image \(ours.version) (hash \(hash)) "
                            + "is still in slot \(ours.slot) (\(ours.flagsDescription)): MCUboot did not boot it"))
            }
            let wantsConfirm = mode == .confirm
            switch mode {
            case .uploadOnly:
                let outcome: SMPUploadResult.Outcome =
                    ours.isPending ? (ours.isPermanent ? .pendingPermanent : .pendingTest) : .uploaded
                return finish(outcome, slot: ours)
            case .testAndConfirm, .test, .confirm:
                if ours.isPending && (ours.isPermanent || !wantsConfirm) {
                    var actions: [SMPAction] = []
                    if ours.isPermanent && !wantsConfirm {
                        actions.append(
                            .log(
                                "slot \(ours.slot) is already pending permanently (imgtool --confirm); not asking for test"
                            ))
                    }
                    return actions + send(.reset, phase: .resetting, at: now)
                }
                guard session.lastStateWrite != wantsConfirm else {
                    return fail(
                        .unexpectedState(
                            "the device accepted \(wantsConfirm ? "confirm" : "test") but slot \(ours.slot) shows "
                                + "\(ours.flagsDescription)"))
                }
                return send(.writeState(confirm: wantsConfirm), phase: .settingState, at: now)
            }
        }
        if session.hasReset {
            return fail(
                .unexpectedState(
                    "after the reset no slot holds the new image (hash \(hash)); the device lists "
                        + Self.describe(slots)))
        }
        if session.uploadCompleted {
            return fail(
                .unexpectedState(
                    "the device took all \(image.count) bytes but its image state does not list the image (hash "
                        + "\(hash)): " + Self.describe(slots)))
        }
        return startUpload(at: now)
    }

    private mutating func finish(_ outcome: SMPUploadResult.Outcome, slot: ImageSlotState) -> [SMPAction] {
        state = .ended
        let parameters = session.parameters ?? configuration.defaultParameters
        let result = SMPUploadResult(
            outcome: outcome, slot: slot, bytesUploaded: session.bytesUploaded, parameters: parameters,
            parametersReported: session.parametersReported, chunkSize: session.largestChunk,
            requestsInFlight: session.mostInFlight, reconnects: session.reconnects)
        return [.cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.resetDisconnect), .finish(result)]
    }

    // MARK: - Upload

    private var planner: SMPChunkPlanner {
        SMPChunkPlanner(
            bufferSize: (session.parameters ?? configuration.defaultParameters).bufferSize, mtu: session.mtu,
            imageLength: image.count, image: configuration.image)
    }

    private var window: Int {
        if let limit = configuration.maximumRequestsInFlight { return max(1, limit) }
        return max(1, (session.parameters ?? configuration.defaultParameters).bufferCount - 1)
    }

    private mutating func startUpload(at now: Duration) -> [SMPAction] {
        guard planner.dataLength(at: 0) >= MCUbootImageHeaderSize.value else {
            return fail(
                .unexpectedState(
                    "buf_size \((session.parameters ?? configuration.defaultParameters).bufferSize) leaves room for "
                        + "\(planner.dataLength(at: 0)) image bytes in the first request; Zephyr needs at least 32"))
        }
        var actions: [SMPAction] = []
        if session.deviceOffset > 0 {
            actions.append(.log("resuming the upload at offset \(session.deviceOffset), where the device stopped"))
        }
        var upload = Upload(nextOffset: session.deviceOffset)
        actions += fill(&upload, at: now)
        state = .uploading(upload)
        return actions
    }

    /// Sends chunks until the window is full: only one until the device answered the first request of the upload.
    private mutating func fill(_ upload: inout Upload, at now: Duration) -> [SMPAction] {
        var actions: [SMPAction] = []
        let limit = upload.nextOffset == 0 || session.deviceOffset == 0 ? 1 : window
        while upload.inFlight.count < limit, upload.nextOffset < image.count {
            let offset = upload.nextOffset
            let length = planner.dataLength(at: offset)
            guard length > 0 else { break }
            let isFirst = offset == 0
            let chunk = ImageUploadChunk(
                image: configuration.image, offset: offset, data: Array(image[offset..<offset + length]),
                length: isFirst ? image.count : nil, sha256: isFirst ? fileSHA256 : nil)
            let sequence = nextSequence()
            actions.append(
                .send(SMPRequest.upload(chunk).frame(sequence: sequence, version: configuration.version).encoded()))
            upload.inFlight.append(Chunk(sequence: sequence, offset: offset, length: length))
            upload.nextOffset = offset + length
            session.bytesSent = max(session.bytesSent, upload.nextOffset)
            session.largestChunk = max(session.largestChunk, length)
            session.mostInFlight = max(session.mostInFlight, upload.inFlight.count)
        }
        if !upload.inFlight.isEmpty {
            actions.append(.startTimer(.response, deadline: now + configuration.responseTimeout))
        }
        return actions
    }

    private mutating func uploadAnswer(_ frame: SMPFrame, for chunk: Chunk, upload: Upload, at now: Duration)
        -> [SMPAction]
    {
        var upload = upload
        if case .failure(let error) = check(frame, answers: .upload) { return fail(error) }
        let answer: ImageUploadResponse
        do {
            answer = try ImageUploadResponse(body: frame.body)
        } catch {
            return fail(.protocolViolation("image upload answer: \(error)"))
        }
        guard answer.offset <= image.count else {
            return fail(
                .protocolViolation("image upload answer reports offset \(answer.offset) of a \(image.count)-byte image")
            )
        }
        var actions: [SMPAction] = []
        let expected = chunk.offset + chunk.length
        if answer.offset > session.deviceOffset {
            // Everything between the last offset the device reported and this one is now on the device, including
            // a chunk whose own answer was lost.
            session.bytesUploaded += answer.offset - session.deviceOffset
            session.reconnectsInRow = 0
        }
        session.deviceOffset = answer.offset
        if answer.offset != expected && !chunk.isSuperseded {
            // The device names the offset it wants: the chunks still in flight will be answered the same way.
            actions.append(
                .log("device expects offset \(answer.offset) after the chunk at \(chunk.offset); going on from there"))
            for index in upload.inFlight.indices { upload.inFlight[index].isSuperseded = true }
            upload.nextOffset = answer.offset
        }
        if answer.match == false {
            return fail(.unexpectedState("the device's SHA-256 of the uploaded image does not match (match: false)"))
        }
        actions.append(.progress(progress(.uploading)))
        if answer.offset == image.count && upload.inFlight.isEmpty {
            session.uploadCompleted = true
            return actions + [.cancelTimer(.response), .log("upload complete: the device holds \(image.count) bytes")]
                + send(.readState, phase: .verifying, at: now)
        }
        if answer.offset == image.count {
            // Superseded chunks are still out; their answers repeat the final offset.
            upload.nextOffset = image.count
        }
        actions += fill(&upload, at: now)
        if upload.inFlight.isEmpty {
            actions.append(.cancelTimer(.response))
        } else {
            actions.append(.startTimer(.response, deadline: now + configuration.responseTimeout))
        }
        state = .uploading(upload)
        return actions
    }

    private static func describe(_ slots: ImageStateResponse) -> String {
        slots.slots.map { slot in
            "slot \(slot.slot) \(slot.version) \(hexString(slot.hash.prefix(4)).replacingSpaces())… (\(slot.flagsDescription))"
        }.joined(separator: ", ")
    }
}

/// The MCUboot header size that Zephyr's first upload request must cover (`sizeof(struct image_header)`).
private enum MCUbootImageHeaderSize {
    static let value = 32
}

extension String {
    /// The text without spaces: hex bytes as one word.
    fileprivate func replacingSpaces() -> String { String(filter { $0 != " " }) }
}

/// The sans-IO SMP image update: events in, ``SMPAction``s out, no I/O and no clock (style §19–21).
///
/// The update, as Zephyr's image management and MCUboot expect it:
/// 1. connect; read MCUmgr parameters (rc 8, "not supported", means Zephyr's defaults); read the image state;
/// 2. upload in chunks sized by ``SMPChunkPlanner``; the first carries `len` and `sha`; the device's `off` is
///    authoritative: a chunk it did not take is sent again from the offset it names, and after a lost link the
///    upload goes on from the last offset it reported (never below it). Up to `buf_count` − 1 requests are in flight
///    once the first answer has come. A request whose answer does not come in time is sent again on a new
///    connection, at most ``SMPUploadConfiguration/maximumResends`` times in a row (for an upload: with the device
///    at the same offset), then the update fails naming it; over a console link (``SMPLink/console(linesAfterLoss:)``)
///    the first lost upload answer also shrinks the requests to a few console lines, one at a time;
/// 3. by ``SMPConfirmMode``: mark for test or confirm, reset, reconnect, read the state, confirm a tested image once
///    it runs. An image that is already pending permanently (signed with `imgtool --confirm`) is never asked for
///    test: the device would refuse with `IMAGE_ALREADY_PENDING` (28).
///
/// Every decision after a (re)connection starts from the device's image state, so a lost link, a reset or a
/// device that already holds the image all go through the same `decide(_:after:at:)`. The result is reported only from
/// the device's own state, read afresh: a state write's own answer is never taken for the state, since a device
/// that lies or loses the write answers it the same way; the state read that follows every write decides.
///
/// A device that answers without making progress cannot keep the upload going: an answer from a chunk the device was
/// due to take that leaves its offset where it was (or sends it back to 0, a restarted upload) is counted, and more
/// than ``SMPUploadConfiguration/maximumResends`` of them in a row end the update naming the offsets seen. An
/// offset that goes back to anything but 0 is never followed.
///
/// Several images (an nRF Connect SDK `dfu_application.zip`: the nRF5340's application core as image 0, its
/// network core as image 1) go in one session, as nRF Connect Device Manager sends them: each image is uploaded to
/// its image number in turn (the device's `off` authoritative per image), then each is marked for test or confirmed,
/// the highest image number first (the network core before the application: NCSDK-34106), the device is reset once,
/// and after the reconnection each new image is confirmed, in the same order. The update is "confirmed" only
/// when the device's state shows every new hash as asked.
package import DeviceLink

package struct SMPUploader: Sendable {
    /// The images, in the order they are sent.
    private let images: [SMPImageUpload]
    private let configuration: SMPUploadConfiguration
    private var state: State = .idle
    private var session = Session()
    /// Per image (same indices as ``images``): what outlives a connection.
    private var transfers: [Transfer]

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
        /// A state write for the image at this index of ``images``.
        case writeState(index: Int, confirm: Bool)
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

    /// The image being sent (its index in ``images``), the chunks in flight, oldest first, and the next offset.
    private struct Upload: Sendable {
        var index: Int
        var inFlight: [Chunk] = []
        var nextOffset: Int
    }

    /// One image's transfer, across connections.
    private struct Transfer: Sendable {
        /// The last `off` the device reported: the upload resumes here.
        var deviceOffset = 0
        var bytesSent = 0
        var bytesUploaded = 0
        var uploadCompleted = false
        /// Times the device started this image's upload over (answered offset 0 after holding bytes).
        var restarts = 0
    }

    private struct Chunk: Sendable {
        var sequence: UInt8
        var offset: Int
        var length: Int
        /// Sent before the device named another offset: its answer is read but does not rewind again.
        var isSuperseded = false
    }

    /// A request whose answer was lost, as re-sends are counted.
    private enum LostRequest: Sendable, Equatable {
        /// An upload request of the image at this index of ``images``, with the device at `deviceOffset`.
        case upload(index: Int, deviceOffset: Int)
        /// A request other than an upload.
        case other(Request)
    }

    /// What outlives a connection.
    private struct Session: Sendable {
        var mtu = 23
        var parameters: MCUmgrParameters?
        var parametersReported = false
        var nextSequence: UInt8 = 0
        /// The image the progress reports are about (an index in ``images``).
        var current = 0
        var hasReset = false
        /// Whether the device is MCUboot's serial recovery (`nil` until its first image state is read).
        var isSerialRecovery: Bool?
        /// The state write the device accepted last (image index, confirm), until the state read after it: to notice a
        /// device that accepts a write without changing its state.
        var stateWriteToVerify: (index: Int, confirm: Bool)?
        /// Upload answers in a row, since the device last took a byte, that took nothing: the offsets they reported.
        var stalledOffsets: [Int] = []
        /// The sequence number of the last answer that matched no request in flight, since the last one that did.
        var straySequence: UInt8?
        var reconnectsInRow = 0
        var reconnects = 0
        var hasConnected = false
        var largestChunk = 0
        var mostInFlight = 0
        /// Answers lost in a row to the same request, and so the re-sends so far.
        ///
        /// The same request is an upload with the device at the same offset of the same image, or the same state
        /// write or reset; re-sends are bounded by ``SMPUploadConfiguration/maximumResends``. State reads between
        /// them do not reset the count; only the request's own answer, or upload progress, does.
        var lostAnswers: (request: LostRequest, count: Int)?
        /// Over a console link after a lost answer: the largest request frame for the rest of the session, sent one
        /// at a time.
        var reducedFrameLimit: Int?
    }

    /// Creates the machine.
    ///
    /// - Parameters:
    ///   - image: The signed image file, sent byte for byte.
    ///   - imageHash: Its SHA-256 TLV (`MCUbootImage.storedHash`).
    ///   - fileSHA256: SHA-256 of the whole file.
    ///   - configuration: The policy.
    package init(image: [UInt8], imageHash: [UInt8], fileSHA256: [UInt8], configuration: SMPUploadConfiguration) {
        self.init(
            images: [
                SMPImageUpload(image: configuration.image, bytes: image, hash: imageHash, fileSHA256: fileSHA256)
            ], configuration: configuration)
    }

    /// Creates the machine for several images, sent in the order given (``SMPUploadConfiguration/image`` is not
    /// used: each image names its number).
    ///
    /// - Parameters:
    ///   - images: The images; at least one, each image number once.
    ///   - configuration: The policy.
    package init(images: [SMPImageUpload], configuration: SMPUploadConfiguration) {
        precondition(!images.isEmpty, "an SMP update needs an image")
        for image in images {
            precondition(image.bytes.count >= 32, "an MCUboot image of \(image.bytes.count) bytes has no header")
            precondition(
                images.filter { $0.image == image.image }.count == 1, "image \(image.image) is given twice")
        }
        self.images = images
        self.configuration = configuration
        transfers = images.map { _ in Transfer() }
    }

    /// Whether the device was ever connected, for the exit status of a failure.
    package var deviceWasReached: Bool { session.hasConnected }

    // MARK: - Inputs

    /// Starts the update.
    ///
    /// - Parameter now: Session time.
    /// - Returns: The actions.
    package mutating func start(at now: Duration) -> [SMPAction] {
        guard case .idle = state else { preconditionFailure("start(at:) in state \(state)") }
        return connect(at: now)
    }

    /// The transport connected.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU (or the serial frame limit).
    ///   - now: Session time.
    /// - Returns: The actions.
    package mutating func connected(mtu: Int, at now: Duration) -> [SMPAction] {
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
    package mutating func receive(_ bytes: [UInt8], at now: Duration) -> [SMPAction] {
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
    package mutating func transportDisconnected(at now: Duration) -> [SMPAction] {
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
    package mutating func transportFailed(_ failure: LinkError, at now: Duration) -> [SMPAction] {
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
    package mutating func timerFired(_ timer: SMPTimer, at now: Duration) -> [SMPAction] {
        switch (timer, state) {
        case (.connection, .connecting):
            return fail(.timedOut(waitingFor: "the connection", limit: configuration.connectionTimeout))
        case (.response, .awaiting(let request, _)):
            return retryAfterTimeout(request, at: now)
        case (.response, .uploading(let upload)):
            return uploadAnswerLost(upload, at: now)
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
    package mutating func cancel(at now: Duration) -> [SMPAction] {
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
            let cause = session.hasReset ? "after the device's reset, \(reason)" : reason
            return fail(.reconnectsExhausted(attempts: configuration.maximumReconnects, lastCause: cause))
        }
        let transfer = transfers[session.current]
        let resume =
            transfer.deviceOffset > 0 && !transfer.uploadCompleted
            ? "; the device reported \(transfer.deviceOffset) bytes\(imageLabel(session.current))" : ""
        return [.cancelTimer(.response), .log("\(reason); reconnecting\(resume)")] + connect(at: now)
    }

    /// No answer to `request` in time: ask again on a new connection, while connections in a row without an answer
    /// stay within ``SMPUploadConfiguration/maximumReconnects`` and re-sends of this very request within
    /// ``SMPUploadConfiguration/maximumResends`` (a state write is sent again after a state read that the device
    /// does answer).
    private mutating func retryAfterTimeout(_ request: Request, at now: Duration) -> [SMPAction] {
        let what = "the answer to \(request.command)"
        guard session.reconnectsInRow < configuration.maximumReconnects else {
            return fail(.timedOut(waitingFor: what, limit: configuration.responseTimeout))
        }
        let count = countLostAnswer(to: .other(request))
        guard count <= configuration.maximumResends else {
            var sequence: UInt8?
            if case .awaiting(_, let sent) = state { sequence = sent }
            return fail(
                .unanswered(
                    "\(request.command)", sends: count, limit: configuration.responseTimeout,
                    remedy: unansweredRemedy(
                        sequence: sequence,
                        otherwise: "the device dropped the request or its answer; give a longer timeout "
                            + "(UpdateOptions.timeout)")))
        }
        session.reconnectsInRow += 1
        session.reconnects += 1
        state = .awaitingLinkLoss
        return [
            .log("no answer within \(configuration.responseTimeout) waiting for \(what); reconnecting"), .disconnect,
        ]
    }

    /// No answer to an upload request in time: send it again on a new connection, at most
    /// ``SMPUploadConfiguration/maximumResends`` times in a row with the device at the same offset; over a console
    /// link, shrink the requests first (a device out of line buffers drops lines without a word).
    private mutating func uploadAnswerLost(_ upload: Upload, at now: Duration) -> [SMPAction] {
        let index = upload.index
        let deviceOffset = transfers[index].deviceOffset
        let offset = upload.inFlight.first?.offset ?? deviceOffset
        let what = "image upload at offset \(offset)\(imageLabel(index))"
        let count = countLostAnswer(to: .upload(index: index, deviceOffset: deviceOffset))
        let limit = configuration.responseTimeout
        let consoleLines = { (frame: Int) in SMPSerialFraming.lines(for: [UInt8](repeating: 0, count: frame)).count }
        let frameLimit = planner(index).frameLimit
        guard count <= configuration.maximumResends else {
            let remedy: String
            switch configuration.link {
            case .console:
                remedy =
                    "the device dropped requests of up to \(frameLimit) bytes (\(consoleLines(frameLimit)) console "
                    + "lines) or their answers; check that the port is the device's MCUmgr console "
                    + "(CONFIG_MCUMGR_TRANSPORT_UART or CONFIG_MCUMGR_TRANSPORT_SHELL), or give a longer timeout "
                    + "(UpdateOptions.timeout)"
            case .packets:
                remedy =
                    "the device dropped requests of up to \(frameLimit) bytes or their answers; try an SMP window of 1 "
                    + "(UpdateOptions.smpWindow) or a longer timeout (UpdateOptions.timeout)"
            }
            return fail(
                .unanswered(
                    what, sends: count, limit: limit,
                    remedy: unansweredRemedy(sequence: upload.inFlight.first?.sequence, otherwise: remedy)))
        }
        var actions: [SMPAction] = []
        if case .console(let lines?) = configuration.link, session.reducedFrameLimit == nil {
            let reduced = min(frameLimit, SMPSerialFraming.largestFrame(lines: lines))
            if reduced < frameLimit || window > 1 {
                actions.append(
                    .log(
                        "no answer to \(what) (requests of up to \(frameLimit) bytes, \(consoleLines(frameLimit)) "
                            + "console lines, \(upload.inFlight.count) in flight): the device may have had no free line "
                            + "buffer for the rest of them; sending requests of at most \(reduced) bytes "
                            + "(\(consoleLines(reduced)) lines), one at a time, for the rest of the session"))
                session.reducedFrameLimit = reduced
            }
        }
        session.reconnects += 1
        state = .awaitingLinkLoss
        return actions + [
            .log(
                "no answer within \(limit) waiting for the answer to \(what); reconnecting to send it again "
                    + "(\(count) of \(configuration.maximumResends))"),
            .disconnect,
        ]
    }

    /// Counts one more lost answer to `request`: 1 when the last lost answer was to another request.
    private mutating func countLostAnswer(to request: LostRequest) -> Int {
        var count = 1
        if let last = session.lostAnswers, last.request == request { count = last.count + 1 }
        session.lostAnswers = (request, count)
        return count
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
        case .writeState(let index, let confirm): wire = .writeImageState(hash: images[index].hash, confirm: confirm)
        case .reset: wire = .reset
        }
        state = .awaiting(request, sequence: sequence)
        return [
            .progress(progress(phase)), .send(wire.frame(sequence: sequence, version: configuration.version).encoded()),
            .startTimer(.response, deadline: now + configuration.responseTimeout),
        ]
    }

    private func progress(_ phase: SMPPhase) -> SMPProgress {
        let index = session.current
        return SMPProgress(
            phase: phase, bytesSent: transfers[index].bytesSent, bytesConfirmed: transfers[index].deviceOffset,
            totalBytes: images[index].bytes.count, image: images[index].image, part: index + 1, parts: images.count)
    }

    /// " of image N" when the update sends several images; nothing for one.
    private func imageLabel(_ index: Int) -> String {
        images.count > 1 ? " of image \(images[index].image)" : ""
    }

    private mutating func fail(_ error: SMPUploadError) -> [SMPAction] {
        state = .ended
        return [.cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.resetDisconnect), .fail(error)]
    }

    private mutating func ignoreLate(_ frame: SMPFrame) -> [SMPAction] {
        session.straySequence = frame.header.sequence
        return [.log("ignored an answer to no request in flight (seq \(frame.header.sequence))")]
    }

    /// Why a request went unanswered, as far as the device showed it: an answer that came with another request's
    /// sequence number says more than a guess about dropped requests.
    private func unansweredRemedy(sequence: UInt8?, otherwise remedy: String) -> String {
        guard let stray = session.straySequence else { return remedy }
        let own = sequence.map { " (this request went out as seq \($0))" } ?? ""
        return "the device answered with seq \(stray), which belongs to another request\(own)"
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
        session.straySequence = nil
        if session.lostAnswers?.request == .other(request) { session.lostAnswers = nil }
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
        case .writeState(let index, let confirm):
            // Zephyr answers a write with the state, but that answer is the write's word, not the device's state:
            // the decision waits for a read of its own.
            session.reconnectsInRow = 0
            session.stateWriteToVerify = (index, confirm)
            actions.append(
                .log("device accepted \(confirm ? "confirm" : "test")\(imageLabel(index)); reading its state"))
            return actions + send(.readState, phase: .verifying, at: now)
        case .readState:
            let slots: ImageStateResponse
            do {
                slots = try ImageStateResponse(body: frame.body)
            } catch {
                return fail(.protocolViolation("\(request.command) answer: \(error)"))
            }
            session.reconnectsInRow = 0
            actions.append(.log("image state: " + Self.describe(slots)))
            let written = session.stateWriteToVerify
            session.stateWriteToVerify = nil
            if session.isSerialRecovery == nil {
                let recovery = recognizeSerialRecovery(slots)
                actions += recovery.actions
                if let error = recovery.error { return actions + fail(error) }
            }
            return actions + decide(slots, after: written, at: now)
        case .reset:
            state = .resetting
            return actions + [
                .progress(progress(.resetting)),
                .startTimer(.resetDisconnect, deadline: now + configuration.resetDisconnectTimeout),
            ]
        }
    }

    /// What one image needs next, read from the device's state.
    private enum Need {
        /// No slot of its image number holds it.
        case upload
        /// In the secondary slot; the mode wants it marked for test (`false`) or confirmed (`true`) before the reset.
        case stateWrite(confirm: Bool)
        /// Pending as the mode wants: the reset swaps it in. `alreadyPermanent`: signed with `imgtool --confirm`, so
        /// it is not asked for test.
        case reset(alreadyPermanent: Bool)
        /// Running unconfirmed, and the mode wants it confirmed.
        case confirmRunning
        /// It stands as asked.
        case done(SMPUploadResult.Outcome, ImageSlotState)
    }

    /// The next step from the device's image state: every image uploaded first, in order; then a running image
    /// that the mode wants confirmed; then each image marked for test or confirmed; then one reset; the result when
    /// every image stands as asked.
    private mutating func decide(
        _ slots: ImageStateResponse, after written: (index: Int, confirm: Bool)?, at now: Duration
    ) -> [SMPAction] {
        var needs: [Need] = []
        for index in images.indices {
            switch need(of: index, in: slots) {
            case .success(let need): needs.append(need)
            case .failure(let error): return fail(error)
            }
        }
        if let index = needs.firstIndex(where: { if case .upload = $0 { true } else { false } }) {
            return startUpload(index, at: now)
        }
        // Marks and confirmations go from the highest image number down: on the nRF5340 the network core (image 1)
        // before the application (image 0), since MCUboot of NCS 2.6 to 3.4 skips a network core image marked after
        // the application's (sdk-nrf known issue NCSDK-34106).
        let markingOrder = images.indices.sorted { images[$0].image > images[$1].image }
        if let index = markingOrder.first(where: { if case .confirmRunning = needs[$0] { true } else { false } }) {
            if let written, written.index == index, written.confirm {
                return fail(
                    .unexpectedState(
                        "the device accepted confirm, but a fresh read of its image state shows "
                            + "\(slotName(of: index, in: slots)) not confirmed"))
            }
            session.current = index
            return send(.writeState(index: index, confirm: true), phase: .settingState, at: now)
        }
        for index in markingOrder {
            guard case .stateWrite(let confirm) = needs[index] else { continue }
            if let written, written.index == index, written.confirm == confirm {
                let flags = slots.slot(withHash: images[index].hash, image: images[index].image)?.flagsDescription
                return fail(
                    .unexpectedState(
                        "the device accepted \(confirm ? "confirm" : "test"), but a fresh read of its image state "
                            + "shows \(slotName(of: index, in: slots)) \(flags ?? "-")"))
            }
            session.current = index
            return send(.writeState(index: index, confirm: confirm), phase: .settingState, at: now)
        }
        var actions: [SMPAction] = []
        var resets = false
        var results: [SMPImageResult] = []
        for (index, need) in needs.enumerated() {
            switch need {
            case .reset(let alreadyPermanent):
                resets = true
                if alreadyPermanent {
                    actions.append(
                        .log(
                            "\(slotName(of: index, in: slots)) is already pending permanently (imgtool --confirm); "
                                + "not asking for test"))
                }
            case .done(let outcome, let slot):
                results.append(
                    SMPImageResult(
                        image: images[index].image, outcome: outcome, slot: slot,
                        bytesUploaded: transfers[index].bytesUploaded))
            case .upload, .stateWrite, .confirmRunning:
                preconditionFailure("image \(images[index].image) still needs \(need) after the earlier steps")
            }
        }
        if resets { return actions + send(.reset, phase: .resetting, at: now) }
        return finish(results)
    }

    /// "slot 1" for one image, "image 1 slot 1" for several.
    private func slotName(of index: Int, in slots: ImageStateResponse) -> String {
        let slot = slots.slot(withHash: images[index].hash, image: images[index].image)?.slot
        let name = slot.map { "slot \($0)" } ?? "the slot"
        return images.count > 1 ? "image \(images[index].image) \(name)" : name
    }

    /// What the image at `index` needs, or why the update cannot go on.
    private func need(of index: Int, in slots: ImageStateResponse) -> Result<Need, SMPUploadError> {
        let target = images[index]
        let mode = configuration.mode
        let hash = hexString(target.hash.prefix(8)).replacingSpaces() + "…"
        let label = imageLabel(index)
        if session.isSerialRecovery == true, session.hasReset, !slots.slots.contains(where: \.isActive) {
            return .failure(
                .unexpectedState(
                    "after the reset the device still lists no running image\(label): it stayed in MCUboot's serial "
                        + "recovery, and did not boot the image written to its primary slot (hash \(hash))"))
        }
        guard let ours = slots.slot(withHash: target.hash, image: target.image) else {
            if session.hasReset {
                return .failure(
                    .unexpectedState(
                        "after the reset no slot holds the new image\(label) (hash \(hash)); the device lists "
                            + Self.describe(slots)))
            }
            if transfers[index].uploadCompleted {
                return .failure(
                    .unexpectedState(
                        "the device took all \(target.bytes.count) bytes\(label) but its image state does not list "
                            + "the image (hash \(hash)): " + Self.describe(slots)))
            }
            return .success(.upload)
        }
        if session.isSerialRecovery == true, !session.hasReset {
            // Serial recovery writes the primary slot itself: nothing to mark; the reset boots it for good.
            guard ours.slot == 0 else {
                return .failure(
                    .unexpectedState(
                        "MCUboot's serial recovery lists the new image\(label) in slot \(ours.slot), not in the "
                            + "primary slot it writes"))
            }
            return .success(mode == .uploadOnly ? .done(.pendingPermanent, ours) : .reset(alreadyPermanent: false))
        }
        if ours.isActive {
            if ours.isConfirmed { return .success(.done(.confirmed, ours)) }
            switch mode {
            case .testAndConfirm, .confirm: return .success(.confirmRunning)
            case .test, .uploadOnly: return .success(.done(.testing, ours))
            }
        }
        if session.hasReset {
            let active = slots.slots.first { $0.isActive && $0.image == target.image }
            let running = active.map { "\($0.version) in slot \($0.slot)" } ?? "no image marked active"
            return .failure(
                .unexpectedState(
                    "after the reset the device runs \(running)\(label); the new image \(ours.version) (hash \(hash)) "
                        + "is still in slot \(ours.slot) (\(ours.flagsDescription)): MCUboot did not boot it"))
        }
        switch mode {
        case .uploadOnly:
            let outcome: SMPUploadResult.Outcome =
                ours.isPending ? (ours.isPermanent ? .pendingPermanent : .pendingTest) : .uploaded
            return .success(.done(outcome, ours))
        case .testAndConfirm, .test, .confirm:
            let wantsConfirm = mode == .confirm
            if ours.isPending && (ours.isPermanent || !wantsConfirm) {
                return .success(.reset(alreadyPermanent: ours.isPermanent && !wantsConfirm))
            }
            return .success(.stateWrite(confirm: wantsConfirm))
        }
    }

    /// Tells MCUboot's serial recovery from an application by the first image state.
    ///
    /// An application lists the slot it runs from as active; serial recovery lists no active slot (it lists no flags
    /// at all). In recovery the upload goes to the primary slot in requests that fill its 1024-byte receive buffer,
    /// one at a time, and there is no test: the image runs for good after the reset.
    private mutating func recognizeSerialRecovery(_ slots: ImageStateResponse) -> (
        actions: [SMPAction], error: SMPUploadError?
    ) {
        // An empty list (a blank device, or an application without a valid image, as smp_svr on native_sim) tells
        // nothing yet; after the upload, recovery shows the new image in the primary slot, an application in the
        // secondary.
        guard !slots.slots.isEmpty else { return ([], nil) }
        var isRecovery = !slots.slots.contains(where: \.isActive)
        if isRecovery, transfers.contains(where: \.uploadCompleted) {
            isRecovery = images.contains { slots.slot(withHash: $0.hash, image: $0.image)?.slot == 0 }
        }
        session.isSerialRecovery = isRecovery
        guard isRecovery else { return ([], nil) }
        var actions: [SMPAction] = [
            .log(
                "the device lists no running image: MCUboot's serial recovery; the image goes straight to the primary "
                    + "slot, with no test and no confirmation, and runs after the reset")
        ]
        if configuration.mode == .test {
            return (
                actions,
                .unexpectedState(
                    "the device is in MCUboot's serial recovery, which writes the primary slot directly and cannot "
                        + "test an image: it would run for good after the reset; ask for test-and-confirm, confirm or "
                        + "upload-only")
            )
        }
        if !session.parametersReported {
            // MCUBOOT_SERIAL_MAX_RECEIVE_SIZE: over a console it holds the packet's length field and CRC too.
            var frame = 1024
            if case .console = configuration.link { frame = SMPSerialFraming.largestFrame(bufferSize: 1024) }
            session.parameters = MCUmgrParameters(bufferSize: frame, bufferCount: 1)
            actions.append(
                .log(
                    "serial recovery: requests of up to \(frame) bytes (MCUboot's 1024-byte receive buffer), one at a "
                        + "time"))
        }
        return (actions, nil)
    }

    private mutating func finish(_ results: [SMPImageResult]) -> [SMPAction] {
        state = .ended
        let parameters = session.parameters ?? configuration.defaultParameters
        let result = SMPUploadResult(
            outcome: results[0].outcome, slot: results[0].slot,
            bytesUploaded: results.reduce(0) { $0 + $1.bytesUploaded },
            images: results, parameters: parameters, parametersReported: session.parametersReported,
            chunkSize: session.largestChunk, requestsInFlight: session.mostInFlight, reconnects: session.reconnects,
            viaSerialRecovery: session.isSerialRecovery == true)
        return [.cancelTimer(.response), .cancelTimer(.connection), .cancelTimer(.resetDisconnect), .finish(result)]
    }

    // MARK: - Upload

    private func planner(_ index: Int) -> SMPChunkPlanner {
        let bufferSize = (session.parameters ?? configuration.defaultParameters).bufferSize
        return SMPChunkPlanner(
            bufferSize: min(bufferSize, session.reducedFrameLimit ?? bufferSize), mtu: session.mtu,
            imageLength: images[index].bytes.count, image: images[index].image)
    }

    private var window: Int {
        if session.reducedFrameLimit != nil { return 1 }
        if let limit = configuration.maximumRequestsInFlight { return max(1, limit) }
        return max(1, (session.parameters ?? configuration.defaultParameters).bufferCount - 1)
    }

    private mutating func startUpload(_ index: Int, at now: Duration) -> [SMPAction] {
        session.current = index
        let planner = planner(index)
        guard planner.dataLength(at: 0) >= MCUbootImageHeaderSize.value else {
            return fail(
                .unexpectedState(
                    "buf_size \((session.parameters ?? configuration.defaultParameters).bufferSize) leaves room for "
                        + "\(planner.dataLength(at: 0)) image bytes in the first request; Zephyr needs at least 32"))
        }
        var actions: [SMPAction] = []
        let offset = transfers[index].deviceOffset
        if offset > 0 {
            actions.append(
                .log("resuming the upload at offset \(offset)\(imageLabel(index)), where the device stopped"))
        } else if images.count > 1 {
            actions.append(
                .log(
                    "uploading image \(images[index].image) (\(index + 1) of \(images.count)): "
                        + "\(images[index].bytes.count) bytes"))
        }
        var upload = Upload(index: index, nextOffset: offset)
        actions += fill(&upload, at: now)
        state = .uploading(upload)
        return actions
    }

    /// Sends chunks until the window is full: only one until the device answered the first request of the upload.
    private mutating func fill(_ upload: inout Upload, at now: Duration) -> [SMPAction] {
        var actions: [SMPAction] = []
        let target = images[upload.index]
        let planner = planner(upload.index)
        let limit = upload.nextOffset == 0 || transfers[upload.index].deviceOffset == 0 ? 1 : window
        while upload.inFlight.count < limit, upload.nextOffset < target.bytes.count {
            let offset = upload.nextOffset
            let length = planner.dataLength(at: offset)
            guard length > 0 else { break }
            let isFirst = offset == 0
            let chunk = ImageUploadChunk(
                image: target.image, offset: offset, data: Array(target.bytes[offset..<offset + length]),
                length: isFirst ? target.bytes.count : nil, sha256: isFirst ? target.fileSHA256 : nil)
            let sequence = nextSequence()
            actions.append(
                .send(SMPRequest.upload(chunk).frame(sequence: sequence, version: configuration.version).encoded()))
            upload.inFlight.append(Chunk(sequence: sequence, offset: offset, length: length))
            upload.nextOffset = offset + length
            transfers[upload.index].bytesSent = max(transfers[upload.index].bytesSent, upload.nextOffset)
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
        let index = upload.index
        let size = images[index].bytes.count
        let label = imageLabel(index)
        if case .failure(let error) = check(frame, answers: .upload) { return fail(error) }
        let answer: ImageUploadResponse
        do {
            answer = try ImageUploadResponse(body: frame.body)
        } catch {
            return fail(.protocolViolation("image upload answer: \(error)"))
        }
        guard answer.offset <= size else {
            return fail(
                .protocolViolation(
                    "image upload answer reports offset \(answer.offset) of a \(size)-byte image\(label)"))
        }
        var actions: [SMPAction] = []
        let expected = chunk.offset + chunk.length
        let previous = transfers[index].deviceOffset
        session.straySequence = nil
        if answer.offset > previous {
            // Everything between the last offset the device reported and this one is now on the device, including
            // a chunk whose own answer was lost.
            transfers[index].bytesUploaded += answer.offset - previous
            session.reconnectsInRow = 0
            session.lostAnswers = nil
            session.stalledOffsets = []
        } else {
            if answer.offset < previous {
                guard answer.offset == 0 else {
                    return fail(
                        .protocolViolation(
                            "the device moved its upload offset back from \(previous) to \(answer.offset)\(label) "
                                + "after the chunk at \(chunk.offset); only a restarted upload (offset 0) may go back"))
                }
                transfers[index].restarts += 1
                guard transfers[index].restarts <= configuration.maximumResends else {
                    return fail(
                        .stalled(
                            "the device started the upload\(label) over (offset 0) \(transfers[index].restarts) times; "
                                + "the last time it held \(previous) of \(size) bytes"))
                }
                actions.append(
                    .log("the device started the upload\(label) over: offset 0 after \(previous) bytes; sending again"))
            }
            if !chunk.isSuperseded {
                // A chunk the device was due to take, and it took nothing.
                session.stalledOffsets.append(answer.offset)
                if session.stalledOffsets.count > configuration.maximumResends {
                    let seen = session.stalledOffsets.map(String.init).joined(separator: ", ")
                    return fail(
                        .stalled(
                            "the device answered \(session.stalledOffsets.count) upload requests\(label) in a row "
                                + "without taking a byte (offsets \(seen), of \(size) bytes)"))
                }
            }
        }
        transfers[index].deviceOffset = answer.offset
        if answer.offset != expected && !chunk.isSuperseded {
            // The device names the offset it wants: the chunks still in flight will be answered the same way.
            actions.append(
                .log(
                    "device expects offset \(answer.offset) after the chunk at \(chunk.offset)\(label); going on "
                        + "from there"))
            for inFlight in upload.inFlight.indices { upload.inFlight[inFlight].isSuperseded = true }
            upload.nextOffset = answer.offset
        }
        if answer.match == false {
            return fail(
                .unexpectedState("the device's SHA-256 of the uploaded image\(label) does not match (match: false)"))
        }
        actions.append(.progress(progress(.uploading)))
        if answer.offset == size && upload.inFlight.isEmpty {
            transfers[index].uploadCompleted = true
            return actions + [
                .cancelTimer(.response), .log("upload complete: the device holds \(size) bytes\(label)"),
            ] + send(.readState, phase: .verifying, at: now)
        }
        if answer.offset == size {
            // Superseded chunks are still out; their answers repeat the final offset.
            upload.nextOffset = size
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

    /// The slots as a log line; with more than one image number listed, each slot is named with its image; "no images"
    /// for an empty list (a device whose slots hold no valid image, as Zephyr's smp_svr on native_sim).
    private static func describe(_ slots: ImageStateResponse) -> String {
        if slots.slots.isEmpty { return "no images" }
        let isMultiImage = slots.slots.contains { $0.image != 0 }
        return slots.slots.map { slot in
            (isMultiImage ? "image \(slot.image) " : "")
                + "slot \(slot.slot) \(slot.version) \(hexString(slot.hash.prefix(4)).replacingSpaces())… "
                + "(\(slot.flagsDescription))"
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

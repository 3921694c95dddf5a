package import DeviceLink

/// The sans-IO machine behind `fs upload` and `fs download` (Zephyr's `fs_mgmt.c`, `FS_MGMT_ID_FILE`): one link,
/// chunk after chunk, each waiting for its answer (style §19–21).
///
/// | state | waits for | next |
/// | --- | --- | --- |
/// | idle | `start(at:)` | connecting |
/// | connecting | `connected(mtu:at:)` | awaiting answer: MCUmgr parameters first, then the chunk at the offset reached |
/// | awaiting answer | the answer with the request's sequence number | the next chunk; ended when the file is whole (an upload that began past 0 closes the file first) |
/// | awaiting link loss | the loss of the link nrfloader dropped after a lost answer | connecting, then the same request again |
/// | ended | nothing | – |
///
/// The device's offset is authoritative: an upload goes on from the `off` the device answers, and from the `len` of
/// `FS_MGMT_ERR_FILE_OFFSET_NOT_VALID` (a chunk the device had written before its answer was lost, sent again); a
/// download asks for the offset it has received up to. A lost answer (the response timer, or the link dropping
/// first) sends the request again on a new connection, at most ``SMPFileTransferConfiguration/maximumResends`` times
/// in a row without progress. Requests are sized to the device's `buf_size` (MCUmgr parameters, or Zephyr's default
/// 384 where the device does not answer them) and the link's limit.
package struct SMPFileTransfer: Sendable {
    /// Which way the file goes.
    package enum Direction: Sendable, Equatable {
        /// To the device: `bytes` to `path`, from `offset` (a resume after the device's first `offset` bytes were
        /// checked to match).
        case upload(path: String, bytes: [UInt8], offset: Int)
        /// From the device: `path`.
        case download(path: String)
    }

    private let direction: Direction
    private let configuration: SMPFileTransferConfiguration
    private var state: State = .idle
    private var nextSequence: UInt8 = 0
    private var mtu = 0
    private var parameters: MCUmgrParameters?
    /// Bytes the device holds (upload) or nrfloader received (download).
    private var offset: Int
    private var total: Int?
    private var received: [UInt8] = []
    /// Lost answers in a row without progress.
    private var lostInRow = 0
    private var resends = 0
    private var reconnects = 0
    private var largestChunk = 0
    private var hasConnected = false

    private enum State: Sendable {
        /// Not started.
        case idle
        /// A connection attempt is under way.
        case connecting
        /// A request is out.
        case awaiting(Step, sequence: UInt8)
        /// nrfloader dropped the link after a lost answer.
        case awaitingLinkLoss
        /// Finished or failed.
        case ended
    }

    /// The request of each step.
    private enum Step: Sendable, Equatable {
        case parameters
        case chunk
        case close
    }

    /// Creates the machine.
    ///
    /// - Parameters:
    ///   - direction: The file and the way it goes.
    ///   - configuration: The policy.
    package init(_ direction: Direction, configuration: SMPFileTransferConfiguration = SMPFileTransferConfiguration()) {
        self.direction = direction
        self.configuration = configuration
        switch direction {
        case .upload(_, let bytes, let start):
            precondition((0...bytes.count).contains(start), "an upload starts within the file")
            offset = start
            total = bytes.count
        case .download:
            offset = 0
        }
    }

    /// Whether the device was ever connected, for the exit status of a failure.
    package var deviceWasReached: Bool { hasConnected }

    // MARK: - Inputs

    /// Starts the transfer.
    package mutating func start(at now: Duration) -> [SMPFileTransferAction] {
        guard case .idle = state else { preconditionFailure("start(at:) in state \(state)") }
        return connect(at: now)
    }

    /// The link connected.
    package mutating func connected(mtu: Int, at now: Duration) -> [SMPFileTransferAction] {
        guard case .connecting = state else { preconditionFailure("connected(mtu:at:) in state \(state)") }
        hasConnected = true
        self.mtu = mtu
        let first: Step = parameters == nil ? .parameters : .chunk
        return [.cancelTimer(.connection), .log("connected, MTU \(mtu)")] + send(first, at: now)
    }

    /// A whole answer frame arrived.
    package mutating func receive(_ bytes: [UInt8], at now: Duration) -> [SMPFileTransferAction] {
        let step: Step
        let sequence: UInt8
        switch state {
        case .awaiting(let awaited, let sent):
            (step, sequence) = (awaited, sent)
        case .connecting, .awaitingLinkLoss:
            return [.log("ignored an answer while nothing is awaited (\(bytes.count) bytes)")]
        case .ended:
            return []
        case .idle:
            preconditionFailure("receive(_:at:) before start")
        }
        let frame: SMPFrame
        do { frame = try SMPFrame(decoding: bytes) } catch {
            return fail(.protocolViolation("answer '\(hexString(bytes.prefix(24)))': \(error)"))
        }
        guard frame.header.operation.isResponse, frame.header.sequence == sequence else {
            return [.log("ignored an answer with seq \(frame.header.sequence), not the request's (\(sequence))")]
        }
        let asked = request(step)
        guard frame.header.group == asked.group, frame.header.command == asked.id else {
            return fail(
                .protocolViolation(
                    "answer with seq \(sequence) is for group \(frame.header.group) command \(frame.header.command), "
                        + "not \(asked)"))
        }
        let error: SMPDeviceError?
        do { error = try SMPResponse.error(in: frame.body) } catch {
            return fail(.protocolViolation("\(asked) answer: \(error)"))
        }
        switch step {
        case .parameters:
            if error != nil {
                parameters = configuration.defaultParameters
                return [
                    .cancelTimer(.response),
                    .log(
                        "device has no MCUmgr parameters; assuming Zephyr's buf_size "
                            + "\(configuration.defaultParameters.bufferSize)"),
                ] + send(.chunk, at: now)
            }
            guard let size = frame.body["buf_size"]?.intValue, let count = frame.body["buf_count"]?.intValue,
                size >= 64
            else { return fail(.protocolViolation("os params answer: no usable buf_size and buf_count")) }
            parameters = MCUmgrParameters(bufferSize: size, bufferCount: count)
            return [.cancelTimer(.response), .log("device buf_size \(size), buf_count \(count)")]
                + send(.chunk, at: now)
        case .close:
            if let error { return fail(.rejected(.group(asked), error, attempt: 1)) }
            return finish()
        case .chunk:
            switch direction {
            case .upload(_, let bytes, _): return uploadAnswered(frame.body, error, asked, bytes.count, at: now)
            case .download: return downloadAnswered(frame.body, error, asked, at: now)
            }
        }
    }

    /// The link went down (also after a ``SMPFileTransferAction/disconnect``).
    package mutating func transportDisconnected(at now: Duration) -> [SMPFileTransferAction] {
        switch state {
        case .awaiting(let step, _):
            return answerLost(step, reason: "the link dropped before the answer", linkIsDown: true, at: now)
        case .awaitingLinkLoss:
            return connect(at: now)
        case .connecting, .ended:
            // A loss reported for the link being replaced (the connection attempt decides), or after the end.
            return []
        case .idle:
            preconditionFailure("transportDisconnected(at:) before start")
        }
    }

    /// A transport operation failed.
    package mutating func transportFailed(_ failure: LinkError, at now: Duration) -> [SMPFileTransferAction] {
        switch state {
        case .awaiting, .awaitingLinkLoss:
            // The loss itself comes as transportDisconnected next.
            if failure.kind == .linkLost { return [.log("write failed: \(failure.cause)")] }
            return fail(.transport(failure))
        case .connecting:
            return fail(.transport(failure))
        case .ended:
            return []
        case .idle:
            preconditionFailure("transportFailed(_:at:) before start")
        }
    }

    /// A timer fired.
    package mutating func timerFired(_ timer: SMPExchangeTimer, at now: Duration) -> [SMPFileTransferAction] {
        switch (timer, state) {
        case (.connection, .connecting):
            return fail(.timedOut(waitingFor: "the connection", limit: configuration.connectionTimeout))
        case (.response, .awaiting(let step, _)):
            return answerLost(
                step, reason: "no answer within \(configuration.responseTimeout)", linkIsDown: false, at: now)
        case (_, .ended), (.linkLoss, _), (.connection, .awaiting), (.connection, .awaitingLinkLoss),
            (.response, .connecting), (.response, .awaitingLinkLoss):
            // A timer that outlived its state: nothing to do.
            return []
        case (_, .idle):
            preconditionFailure("timerFired(_:at:) before start")
        }
    }

    /// The user interrupted: the link is dropped and the transfer fails.
    package mutating func cancel(at now: Duration) -> [SMPFileTransferAction] {
        if case .ended = state { return [] }
        return [.disconnect] + fail(.cancelled)
    }

    // MARK: - Steps

    private var path: String {
        switch direction {
        case .upload(let path, _, _), .download(let path): path
        }
    }

    /// The largest request frame: the device's buffer, cut to the link's (whole ATT packets over BLE).
    private var frameLimit: Int {
        let bufferSize = (parameters ?? configuration.defaultParameters).bufferSize
        return SMPChunkPlanner(bufferSize: bufferSize, mtu: mtu, imageLength: 0).frameLimit
    }

    /// The request of `step` at the current offset.
    private func request(_ step: Step) -> SMPGroupRequest {
        switch step {
        case .parameters: return .parameters
        case .close: return .fileClose
        case .chunk:
            switch direction {
            case .download(let path): return .fileDownload(name: path, offset: offset)
            case .upload(let path, let bytes, _):
                let length = offset == 0 ? bytes.count : nil
                let empty = SMPGroupRequest.fileUpload(name: path, offset: offset, data: [], length: length)
                let base = SMPHeader.size + CBOREncoder().encode(empty.body).count - 1
                var count = min(bytes.count - offset, max(0, frameLimit - base - 5))
                while count > 0, base + CBOREncoder.headSize(argument: count) + count > frameLimit { count -= 1 }
                return .fileUpload(
                    name: path, offset: offset, data: Array(bytes[offset..<offset + count]), length: length)
            }
        }
    }

    private mutating func send(_ step: Step, at now: Duration) -> [SMPFileTransferAction] {
        let sequence = nextSequence
        nextSequence &+= 1
        state = .awaiting(step, sequence: sequence)
        let request = request(step)
        if step == .chunk, case .upload = direction {
            if case .bytes(let data)? = request.body["data"] {
                if data.isEmpty, offset < (total ?? 0) {
                    return fail(
                        .protocolViolation(
                            "buf_size \((parameters ?? configuration.defaultParameters).bufferSize) leaves no room for "
                                + "file bytes in a request"))
                }
                largestChunk = max(largestChunk, data.count)
            }
        }
        let frame = request.frame(sequence: sequence, version: configuration.version).encoded()
        return [.send(frame), .startTimer(.response, deadline: now + configuration.responseTimeout)]
    }

    private mutating func uploadAnswered(
        _ body: CBORValue, _ error: SMPDeviceError?, _ asked: SMPGroupRequest, _ length: Int, at now: Duration
    ) -> [SMPFileTransferAction] {
        if let error {
            // FS_MGMT_ERR_FILE_OFFSET_NOT_VALID: the device holds another length (a chunk written before its answer
            // was lost); it closed the file, and takes the next request at that length.
            guard error.source == .group(SMPGroupRequest.Group.fileSystem), error.rc == 11,
                let held = body["len"]?.intValue, (0...length).contains(held)
            else { return fail(.rejected(.group(asked), error, attempt: 1)) }
            return progressed(to: held, log: "device holds \(held) bytes of the file; going on from there", at: now)
        }
        guard let reached = body["off"]?.intValue, (0...length).contains(reached) else {
            return fail(.protocolViolation("fs upload answer: no \"off\" within the file's \(length) bytes"))
        }
        return progressed(to: reached, log: nil, at: now)
    }

    private mutating func progressed(to reached: Int, log: String?, at now: Duration) -> [SMPFileTransferAction] {
        if reached != offset { lostInRow = 0 }
        offset = reached
        var actions: [SMPFileTransferAction] = [.cancelTimer(.response)]
        if let log { actions.append(.log(log)) }
        actions.append(.progress(bytesDone: offset, totalBytes: total ?? 0))
        guard offset >= (total ?? 0) else { return actions + send(.chunk, at: now) }
        if case .upload(_, _, let start) = direction, start > 0 {
            // Zephyr closes an upload by itself once it reaches the length the first chunk gave; a resumed one never
            // gave it.
            return actions + send(.close, at: now)
        }
        return actions + finish()
    }

    private mutating func downloadAnswered(
        _ body: CBORValue, _ error: SMPDeviceError?, _ asked: SMPGroupRequest, at now: Duration
    ) -> [SMPFileTransferAction] {
        if let error { return fail(.rejected(.group(asked), error, attempt: 1)) }
        guard body["off"]?.intValue == offset, case .bytes(let data)? = body["data"] else {
            return fail(.protocolViolation("fs download answer: no \"data\" at offset \(offset)"))
        }
        if offset == 0 {
            guard let length = body["len"]?.intValue, length >= 0 else {
                return fail(.protocolViolation("fs download answer at offset 0: no \"len\""))
            }
            total = length
        }
        let length = total ?? 0
        guard offset + data.count <= length else {
            return fail(.protocolViolation("fs download answer: \(offset + data.count) bytes of a \(length)-byte file"))
        }
        guard !data.isEmpty || offset == length else {
            return fail(.protocolViolation("fs download answer: no bytes at offset \(offset) of \(length)"))
        }
        received += data
        largestChunk = max(largestChunk, data.count)
        return progressed(to: offset + data.count, log: nil, at: now)
    }

    private mutating func answerLost(_ step: Step, reason: String, linkIsDown: Bool, at now: Duration)
        -> [SMPFileTransferAction]
    {
        lostInRow += 1
        guard lostInRow <= configuration.maximumResends else {
            return fail(.timedOut(waitingFor: "the answer to \(request(step))", limit: configuration.responseTimeout))
        }
        resends += 1
        reconnects += 1
        let actions: [SMPFileTransferAction] = [
            .cancelTimer(.response),
            .log("\(reason) to \(request(step)) at offset \(offset); reconnecting to send it again"),
        ]
        if linkIsDown { return actions + connect(at: now) }
        state = .awaitingLinkLoss
        return actions + [.disconnect]
    }

    private mutating func connect(at now: Duration) -> [SMPFileTransferAction] {
        state = .connecting
        return [.startTimer(.connection, deadline: now + configuration.connectionTimeout), .connect]
    }

    private mutating func finish() -> [SMPFileTransferAction] {
        state = .ended
        let start: Int
        if case .upload(_, _, let from) = direction { start = from } else { start = 0 }
        let result = SMPFileTransferResult(
            bytes: received, length: total ?? 0, startOffset: start, resends: resends,
            largestChunk: largestChunk, bufferSize: (parameters ?? configuration.defaultParameters).bufferSize)
        return [.cancelTimer(.response), .cancelTimer(.connection), .finish(result)]
    }

    private mutating func fail(_ error: SMPExchangeError) -> [SMPFileTransferAction] {
        state = .ended
        return [.cancelTimer(.response), .cancelTimer(.connection), .fail(error)]
    }
}

/// What the file transfer machine asks of its driver.
package enum SMPFileTransferAction: Sendable, Equatable {
    /// Connect (again).
    case connect
    /// Send one request frame.
    case send([UInt8])
    /// Drop the link.
    case disconnect
    /// Start (or restart) a timer.
    case startTimer(SMPExchangeTimer, deadline: Duration)
    /// Cancel a timer.
    case cancelTimer(SMPExchangeTimer)
    /// Bytes the device confirmed (upload) or nrfloader received (download), of the file's length.
    case progress(bytesDone: Int, totalBytes: Int)
    /// A line of detail for `--verbose`.
    case log(String)
    /// The file is whole.
    case finish(SMPFileTransferResult)
    /// The transfer failed.
    case fail(SMPExchangeError)
}

/// The policy of a file transfer.
package struct SMPFileTransferConfiguration: Sendable, Equatable {
    /// The SMP version to ask in.
    package var version: SMPVersion = .v2
    /// How long one connection attempt may take.
    package var connectionTimeout: Duration = .seconds(15)
    /// How long each answer may take: Zephyr answers a file chunk from its SMP work queue once the file system has
    /// written or read it; 5 s, as the other management requests.
    package var responseTimeout: Duration = .seconds(5)
    /// Lost answers in a row, without progress, before the transfer fails.
    package var maximumResends = 3
    /// What to assume when the device does not answer MCUmgr parameters: Zephyr's defaults.
    package var defaultParameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4)

    /// The defaults.
    package init() {}
}

/// What a finished transfer did.
package struct SMPFileTransferResult: Sendable, Equatable {
    /// A download's bytes (empty for an upload).
    package var bytes: [UInt8]
    /// The file's length.
    package var length: Int
    /// Where an upload began (above 0 for a resume).
    package var startOffset: Int
    /// Requests sent again after lost answers.
    package var resends: Int
    /// The most file bytes one request or answer carried.
    package var largestChunk: Int
    /// The device's buffer size the requests were sized to.
    package var bufferSize: Int

    /// Creates a result.
    package init(bytes: [UInt8], length: Int, startOffset: Int, resends: Int, largestChunk: Int, bufferSize: Int) {
        self.bytes = bytes
        self.length = length
        self.startOffset = startOffset
        self.resends = resends
        self.largestChunk = largestChunk
        self.bufferSize = bufferSize
    }
}

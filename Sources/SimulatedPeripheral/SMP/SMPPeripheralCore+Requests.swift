import SMP

/// Requests: writes reassembled into SMP frames (Zephyr `smp_reassembly.c`), the faults applied, the device's answers
/// notified in MTU − 3 pieces, and the upload tally kept.
extension SMPPeripheralCore {
    /// Feeds written bytes (one ATT Write Command) to the device's reassembly; complete frames are handled.
    func received(_ bytes: [UInt8], _ state: inout State) {
        guard state.link != nil, !state.isResetting else { return }
        state.pending += bytes
        while let total = SMPFrame.totalLength(ofFrameStartingWith: state.pending), state.pending.count >= total {
            let frame = Array(state.pending[..<total])
            state.pending.removeFirst(total)
            handle(frame, &state)
            guard state.link != nil, !state.isResetting else { return }
        }
    }

    private func handle(_ frame: [UInt8], _ state: inout State) {
        if state.faults.dropsRequest() {
            onEvent(.log("fault: request of \(frame.count) bytes lost (drop-packet)"))
            return
        }
        switch state.faults.received(bytes: frame.count) {
        case .disconnect:
            onEvent(.log("fault: link dropped after \(frame.count)-byte request (disconnect)"))
            dropLink(&state)
            return
        case .reboot:
            onEvent(.log("fault: device resets on a \(frame.count)-byte request (reboot)"))
            beginReset(after: .zero, &state)
            return
        case .none:
            break
        }
        let output = state.device.receive(frame)
        reportDeviceLog(&state)
        let summary = Self.summary(of: frame, answer: output.answer)
        onEvent(.exchange(summary))
        tally(frame, answer: output.answer, &state)
        if let answer = output.answer, !state.faults.stallsAnswer() {
            let copies = state.faults.answerCopies()
            if copies == 0 { onEvent(.log("fault: answer of \(answer.count) bytes dropped (drop-notification)")) }
            if copies == 2 {
                onEvent(.log("fault: answer of \(answer.count) bytes sent twice (duplicate-notification)"))
            }
            for _ in 0..<copies { notify(answer, &state) }
        } else if output.answer != nil {
            onEvent(.log("fault: device stalled, no answer (stall)"))
        }
        if output.resetsAfterAnswer { beginReset(after: options.resetDelay, &state) }
    }

    private func beginReset(after delay: Duration, _ state: inout State) {
        state.isResetting = true
        state.pending.removeAll()
        actions.yield(.reset(after: delay))
    }

    /// Sends an answer as notifications of at most MTU − 3 bytes (`smp_bt.c`).
    private func notify(_ answer: [UInt8], _ state: inout State) {
        guard let link = state.link else { return }
        let size = max(link.mtu - 3, 20)
        for start in stride(from: 0, to: answer.count, by: size) {
            let piece = Array(answer[start..<min(start + size, answer.count)])
            if let socket = state.notifySocket {
                if !socket.send(piece) { onEvent(.warning("notification dropped: its socket is full or closed")) }
            } else if state.notifying {
                state.value = piece
                post(["Value": .bytes(piece)], state)
            } else {
                onEvent(.warning("answer dropped: the central did not subscribe to notifications"))
                return
            }
        }
    }

    /// Counts image upload chunks by what the device answered.
    private func tally(_ frame: [UInt8], answer: [UInt8]?, _ state: inout State) {
        guard let request = try? SMPFrame(decoding: frame), request.header.group == 1, request.header.command == 1,
            case .bytes(let data)? = request.body["data"], let offset = request.body["off"]?.intValue,
            let answer, let response = try? SMPFrame(decoding: answer), let next = response.body["off"]?.intValue
        else { return }
        state.tally.requests += 1
        if next == offset + data.count {
            state.tally.bytesWritten += data.count
        } else if request.body["sha"] != nil || request.body["len"] != nil {
            state.tally.resumeProbes += 1
        } else {
            state.tally.staleChunks += 1
            state.tally.staleBytes += data.count
        }
        state.expectedOffset = next
    }

    private func reportDeviceLog(_ state: inout State) {
        let log = state.device.log
        guard state.logCursor < log.count else { return }
        for line in log[state.logCursor...] { onEvent(.log(line)) }
        state.logCursor = log.count
    }

    /// `> group 1 id 1 (image upload) off 0 len 131072, 292 bytes; < 14 bytes`.
    private static func summary(of frame: [UInt8], answer: [UInt8]?) -> String {
        guard let request = try? SMPFrame(decoding: frame) else { return "> \(frame.count) bytes, not an SMP frame" }
        let header = request.header
        var text = "> \(header.operation) group \(header.group) id \(header.command) seq \(header.sequence)"
        if let offset = request.body["off"]?.intValue { text += " off \(offset)" }
        if let length = request.body["len"]?.intValue { text += " len \(length)" }
        if case .bytes(let data)? = request.body["data"] { text += " data \(data.count)" }
        text += " (\(frame.count) bytes)"
        guard let answer else { return text + "; no answer" }
        var answered = "; < \(answer.count) bytes"
        if let response = try? SMPFrame(decoding: answer) {
            if let offset = response.body["off"]?.intValue { answered += " off \(offset)" }
            if let rc = response.body["rc"]?.intValue { answered += " rc \(rc)" }
            if let rc = response.body["err"]?["rc"]?.intValue { answered += " err rc \(rc)" }
        }
        return text + answered
    }
}

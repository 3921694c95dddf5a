/// What a per-protocol machine hands back to ``DFUController`` after an input.
enum MachineOutput: Equatable, Sendable {
    /// The part is still in progress; perform these actions.
    case running([DFUAction])
    /// The device confirmed the part; perform these actions, then move on.
    case partComplete([DFUAction], PartConfirmation)
    /// The part failed.
    case failed(DFUError)
    /// The part must start over on a fresh connection (a legacy bootloader's restart after lost bytes, a CRC
    /// error or an unfinished earlier update): perform these actions, then reconnect; `error` is the failure to
    /// report once reconnects are exhausted.
    case restart([DFUAction], reason: String, error: DFUError)
}

extension MachineOutput {
    /// The same output with `action` performed first.
    ///
    /// - Parameter action: The action to put in front (a log line, say).
    /// - Returns: The output.
    func prepending(_ action: DFUAction) -> MachineOutput {
        switch self {
        case .running(let actions): .running([action] + actions)
        case .partComplete(let actions, let confirmation): .partComplete([action] + actions, confirmation)
        case .failed: self
        case .restart(let actions, let reason, let error): .restart([action] + actions, reason: reason, error: error)
        }
    }
}

/// The facts about the current part that every machine needs.
struct PartContext: Equatable, Sendable {
    /// The part being sent.
    var part: DFUFirmware.Part
    /// Its 1-based number.
    var number: Int
    /// The number of parts.
    var count: Int
    /// The session's policy.
    var configuration: DFUConfiguration

    /// A progress action for this part.
    ///
    /// - Parameters:
    ///   - phase: The stage.
    ///   - sent: Payload bytes written.
    ///   - confirmed: Payload bytes the device confirmed.
    /// - Returns: The action.
    func progress(_ phase: DFUPhase, sent: Int = 0, confirmed: Int = 0) -> DFUAction {
        .progress(
            DFUProgress(
                phase: phase, part: number, partCount: count, bytesSent: sent, bytesConfirmed: confirmed,
                totalBytes: part.image.count))
    }

    /// The response timer for a request answered without a long transfer.
    ///
    /// - Parameter now: The time the request is written.
    /// - Returns: The timer action.
    func responseTimer(at now: Duration) -> DFUAction {
        .startTimer(.response, deadline: now + configuration.responseTimeout)
    }

    /// The timer for a packet receipt notification that ends a run of `packets` writes: the time the link needs
    /// for them plus a margin (``DFUConfiguration/packetWriteAllowance``, ``DFUConfiguration/receiptMargin``).
    ///
    /// - Parameters:
    ///   - packets: The run's packet writes.
    ///   - now: The time the run is handed to the adapter.
    /// - Returns: The timer action.
    func receiptTimer(afterRunOf packets: Int, at now: Duration) -> DFUAction {
        .startTimer(
            .response, deadline: now + configuration.packetWriteAllowance * packets + configuration.receiptMargin)
    }

    /// The response timer for an answer that follows a run of `bytes` payload bytes.
    ///
    /// - Parameters:
    ///   - bytes: The run's payload bytes.
    ///   - now: The time the run is handed to the adapter.
    /// - Returns: The timer action, allowing the run to be written at ``DFUConfiguration/minimumThroughput``.
    func responseTimer(afterRunOf bytes: Int, at now: Duration) -> DFUAction {
        .startTimer(.response, deadline: responseDeadline(afterRunOf: bytes, at: now))
    }

    /// When an answer that follows a run of `bytes` payload bytes is overdue: ``DFUConfiguration/responseTimeout``
    /// after the run, which is allowed ``DFUConfiguration/minimumThroughput``.
    ///
    /// - Parameters:
    ///   - bytes: The run's payload bytes (0 for a request without a run).
    ///   - now: The time the run is handed to the adapter.
    /// - Returns: The deadline.
    func responseDeadline(afterRunOf bytes: Int, at now: Duration) -> Duration {
        let writing = Duration.milliseconds(bytes * 1000 / max(configuration.minimumThroughput, 1))
        return now + configuration.responseTimeout + writing
    }
}

/// Splits `bytes` into writes of at most `size` bytes; only the last may be shorter.
///
/// - Parameters:
///   - bytes: The payload.
///   - size: The largest write.
/// - Returns: The writes, in order.
func packets(of bytes: ArraySlice<UInt8>, size: Int) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(start + size, bytes.endIndex)
        result.append(Array(bytes[start..<end]))
        start = end
    }
    return result
}

/// What the one-request machine ``SMPExchange`` asks its driver to do, in order.
package import DeviceLink

package enum SMPExchangeAction: Sendable, Equatable {
    /// Connect (again) to the device.
    case connect
    /// Send one request frame.
    case send([UInt8])
    /// Drop the link.
    case disconnect
    /// Start (or restart) a timer that fires at `deadline` (session time).
    case startTimer(SMPExchangeTimer, deadline: Duration)
    /// Cancel a timer.
    case cancelTimer(SMPExchangeTimer)
    /// A line of detail for `--verbose`.
    case log(String)
    /// The device answered; the exchange is over.
    case finish(SMPExchangeResult)
    /// The exchange failed.
    case fail(SMPExchangeError)
}

/// The exchange's timers.
package enum SMPExchangeTimer: Sendable, Equatable, Hashable {
    /// A connection attempt.
    case connection
    /// The request is due an answer.
    case response
    /// The device answered reset; the link is due to drop.
    case linkLoss
}

/// The exchange's policy, with the evidence behind each default.
package struct SMPExchangeConfiguration: Sendable, Equatable {
    /// The SMP version to ask in, the upload's default.
    ///
    /// v2 gets group errors (`err {group, rc}`) with names; a v1-only device answers a v2 request as v1 (Zephyr
    /// `smp.c`).
    package var version: SMPVersion = .v2
    /// How long one connection attempt may take: the upload's default (the port appearing, the device answering echo,
    /// or a BLE connection).
    package var connectionTimeout: Duration = .seconds(15)
    /// How long echo, reset and the image state commands wait for their answer: Zephyr answers them from the SMP
    /// work queue within milliseconds; 5 s leaves room for a BLE connection interval of up to 4 s and a busy device.
    package var responseTimeout: Duration = .seconds(5)
    /// How long image erase waits for its answer: Zephyr erases the slot before answering (the command is
    /// synchronous, `img_mgmt_erase`), and an nRF52840's 1 MiB slot is 256 pages at up to 85 ms each (product
    /// specification, t_ERASEPAGE), about 22 s.
    package var eraseTimeout: Duration = .seconds(30)
    /// How long to wait, after the device answered reset, for the link to drop; the upload's default.
    ///
    /// Zephyr resets `CONFIG_MCUMGR_GRP_OS_RESET_MS` (250 ms) after answering, and a central notices within its
    /// supervision timeout (Linux: 420 ms); a serial console shows the boot banner.
    package var resetTimeout: Duration = .seconds(5)
    /// How many times the request is sent in all: after a lost answer (no answer in time, or the link dropped before
    /// it) the machine reconnects and sends it again, as the upload machine reconnects after a lost answer.
    package var maximumAttempts = 3

    /// Creates the default configuration.
    package init() {}

    /// Every wait set to `limit` (`--timeout`).
    ///
    /// - Parameter limit: The wait.
    /// - Returns: The configuration.
    package func waiting(_ limit: Duration) -> SMPExchangeConfiguration {
        var configuration = self
        configuration.connectionTimeout = limit
        configuration.responseTimeout = limit
        configuration.eraseTimeout = limit
        configuration.resetTimeout = limit
        return configuration
    }
}

/// How an exchange ended well.
package struct SMPExchangeResult: Sendable, Equatable {
    /// The device's reply.
    package var reply: SMPManagementReply
    /// How many times the request was sent.
    package var attempts: Int

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - reply: The reply.
    ///   - attempts: The sends.
    package init(reply: SMPManagementReply, attempts: Int) {
        self.reply = reply
        self.attempts = attempts
    }
}

/// Why an exchange failed, saying who failed (style §14).
package enum SMPExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device answered the request with an error; `attempt` is the send it answered (from 1).
    case rejected(SMPManagementRequest, SMPDeviceError, attempt: Int)
    /// The device sent something that is not a valid answer.
    case protocolViolation(String)
    /// The device accepted a state change, but a fresh read of its image state does not show it.
    case notApplied(SMPManagementRequest, shows: String)
    /// Nothing came in time.
    case timedOut(waitingFor: String, limit: Duration)
    /// The transport failed (connect, write, or the link).
    case transport(LinkError)
    /// The user interrupted.
    case cancelled

    package var description: String {
        switch self {
        case .rejected(let request, let error, let attempt):
            let resent =
                attempt > 1 && request.changesImageState && error.isImageAlreadyPending
                ? "; the request was sent \(attempt) times after lost answers, and an earlier copy may have set the "
                    + "state already"
                : ""
            return "device refused \(request): \(error)\(resent)"
        case .protocolViolation(let what): return "device violated SMP: \(what)"
        case .notApplied(let request, let shows):
            return "device accepted \(request), but a fresh read of its image state shows \(shows)"
        case .timedOut(let what, let limit): return "timed out after \(limit) waiting for \(what)"
        case .transport(let failure): return "transport failed: \(failure)"
        case .cancelled: return "cancelled"
        }
    }
}

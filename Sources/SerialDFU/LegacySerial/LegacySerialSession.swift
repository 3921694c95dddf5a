package import DFUController
package import SerialLine

/// Runs ``LegacySerialDFU`` on a serial port: the I/O around the machine.
package struct LegacySerialSession: Sendable {
    /// Why the session ended without finishing.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The port could not be opened.
        case port(SerialPortError)
        /// The port went away during the update.
        case vanished(SerialPortError)
        /// The device did not come back after its reset between two parts.
        case didNotComeBack(String)
        /// Another device is where the device was after its reset: it is not updated.
        case otherDevice(String)
        /// The protocol gave up.
        case protocolFailure(LegacySerialError)
        /// The task was cancelled.
        case cancelled

        package var description: String {
            switch self {
            case .port(let error), .vanished(let error): error.description
            case .didNotComeBack(let message), .otherDevice(let message): message
            case .protocolFailure(let error): error.description
            case .cancelled: "cancelled"
            }
        }
    }

    private let options: SerialDFUTransport.Options
    private let configuration: LegacySerialDFU.Configuration
    private let reconnectTimeout: Duration

    /// Creates a session on the port `options` name.
    ///
    /// - Parameters:
    ///   - options: The port and its settings.
    ///   - configuration: The machine's timings and limits.
    ///   - reconnectTimeout: How long to wait for the port to come back after a part (the device resets and, over
    ///     USB, re-enumerates; it is found again by its USB serial number).
    package init(
        options: SerialDFUTransport.Options, configuration: LegacySerialDFU.Configuration = .init(),
        reconnectTimeout: Duration = .seconds(15)
    ) {
        self.options = options
        self.configuration = configuration
        self.reconnectTimeout = reconnectTimeout
    }

    /// Sends `parts`; `onAction` sees every progress and part report.
    ///
    /// Between two parts the port is closed (as adafruit-nrfutil does) and opened again for the next part's Start
    /// packet. Until the device acknowledges that Start packet it may still be activating the part before and
    /// resetting: silence makes the host resend it, a vanished port makes the host open the port again (found by
    /// USB serial number), both until the reconnection deadline.
    ///
    /// - Throws: ``Failure``.
    package func run(parts: [DFUFirmware.Part], onAction: (LegacySerialDFU.Action) -> Void) async throws(Failure) {
        let clock = ContinuousClock()
        var locator = SerialPortLocator(options.port)
        var port: SerialPort?
        do { port = try await locator.open(until: clock.now) } catch {
            if case .port(let error) = error { throw .port(error) }
            throw .port(.notFound(path: options.path))
        }
        defer { port?.close() }
        var machine = LegacySerialDFU(parts: parts, configuration: configuration)
        var decoder = SLIPDecoder()
        var pending = machine.start()
        var deadline: ContinuousClock.Instant?
        var reconnectDeadline: ContinuousClock.Instant?
        var isPause = false
        /// The port vanished: throws unless the device may be resetting into the next part, then resends Start.
        func lost(_ error: SerialPortError) throws(Failure) {
            guard machine.isAwaitingLaterStart, reconnectDeadline != nil else { throw .vanished(error) }
            port?.close()
            port = nil
            decoder = SLIPDecoder()
            pending = machine.resendStart()
        }
        while true {
            let actions = pending
            pending = []
            for action in actions {
                switch action {
                case .send(let bytes):
                    if port == nil {
                        port = try await reopen(&locator, until: reconnectDeadline ?? clock.now)
                    }
                    do { try port?.write(bytes) } catch {
                        try lost(error)
                        break
                    }
                case .awaitAcknowledgement(let timeout):
                    deadline = clock.now.advanced(by: timeout)
                    isPause = false
                case .pause(let duration):
                    deadline = clock.now.advanced(by: duration)
                    isPause = true
                case .finished:
                    return
                case .failed(let error):
                    throw .protocolFailure(error)
                case .partSent(let part, _):
                    onAction(action)
                    // The device resets to activate the part; the next one goes to the port it comes back on.
                    if part < parts.count {
                        port?.close()
                        port = nil
                        decoder = SLIPDecoder()
                        reconnectDeadline = clock.now.advanced(by: configuration.activationTime + reconnectTimeout)
                    }
                case .progress:
                    if !machine.isAwaitingLaterStart { reconnectDeadline = nil }
                    onAction(action)
                }
            }
            if !pending.isEmpty { continue }
            if Task.isCancelled { throw .cancelled }
            guard let until = deadline else { return }
            if clock.now >= until {
                deadline = nil
                // A device still activating the part before does not answer: its next Start is resent until the
                // reconnection deadline, not just the usual number of times.
                let isResetting = machine.isAwaitingLaterStart && reconnectDeadline.map { clock.now < $0 } ?? false
                pending = isResetting ? machine.resendStart() : machine.timerFired()
                continue
            }
            guard !isPause, let current = port else {
                try? await Task.sleep(until: min(until, clock.now.advanced(by: .milliseconds(100))), clock: clock)
                continue
            }
            let result: SerialPort.ReadResult
            do { result = try current.read(timeout: min(clock.now.duration(to: until), .milliseconds(100))) } catch {
                try lost(error)
                continue
            }
            if case .bytes(let bytes) = result {
                for frame in decoder.feed(bytes) {
                    pending += machine.receive(frame: frame)
                }
            }
        }
    }

    private func reopen(_ locator: inout SerialPortLocator, until deadline: ContinuousClock.Instant)
        async throws(Failure) -> SerialPort
    {
        do { return try await locator.open(until: deadline) } catch {
            switch error {
            case .didNotAppear(let message): throw .didNotComeBack(message)
            case .otherDevice(let message): throw .otherDevice(message)
            case .port(let error): throw .port(error)
            }
        }
    }
}

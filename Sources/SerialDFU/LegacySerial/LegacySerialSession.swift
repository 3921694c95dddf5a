public import DFUController

/// Runs ``LegacySerialDFU`` on a serial port: the I/O around the machine.
public struct LegacySerialSession: Sendable {
    /// Why the session ended without finishing.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The port could not be opened.
        case port(SerialPortError)
        /// The port went away during the update.
        case vanished(SerialPortError)
        /// The protocol gave up.
        case protocolFailure(LegacySerialError)
        /// The task was cancelled.
        case cancelled

        public var description: String {
            switch self {
            case .port(let error), .vanished(let error): error.description
            case .protocolFailure(let error): error.description
            case .cancelled: "cancelled"
            }
        }
    }

    private let options: SerialDFUTransport.Options
    private let configuration: LegacySerialDFU.Configuration

    /// Creates a session on the port `options` name.
    public init(options: SerialDFUTransport.Options, configuration: LegacySerialDFU.Configuration = .init()) {
        self.options = options
        self.configuration = configuration
    }

    /// Sends `parts`; `onAction` sees every progress and part report.
    ///
    /// - Throws: ``Failure``.
    public func run(parts: [FirmwarePart], onAction: (LegacySerialDFU.Action) -> Void) async throws(Failure) {
        let port: SerialPort
        do {
            port = try SerialPort(
                path: options.path,
                settings: SerialPort.Settings(
                    baudRate: options.baudRate, hardwareFlowControl: options.hardwareFlowControl))
        } catch { throw .port(error) }
        defer { port.close() }
        let clock = ContinuousClock()
        var machine = LegacySerialDFU(parts: parts, configuration: configuration)
        var decoder = SLIPDecoder()
        var pending = machine.start()
        var deadline: ContinuousClock.Instant?
        var isPause = false
        while true {
            for action in pending {
                switch action {
                case .send(let bytes):
                    do { try port.write(bytes) } catch { throw .vanished(error) }
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
                case .progress, .partSent:
                    onAction(action)
                }
            }
            pending = []
            if Task.isCancelled { throw .cancelled }
            guard let until = deadline else { return }
            if clock.now >= until {
                deadline = nil
                pending = machine.timerFired()
                continue
            }
            if isPause {
                try? await Task.sleep(until: min(until, clock.now.advanced(by: .milliseconds(100))), clock: clock)
                continue
            }
            let result: SerialPort.ReadResult
            do { result = try port.read(timeout: min(clock.now.duration(to: until), .milliseconds(100))) } catch {
                throw .vanished(error)
            }
            if case .bytes(let bytes) = result {
                for frame in decoder.feed(bytes) {
                    pending += machine.receive(frame: frame)
                }
            }
        }
    }
}

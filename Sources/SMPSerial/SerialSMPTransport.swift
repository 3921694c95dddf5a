package import DeviceLink
import SMP
package import SMPTargetAdapter
package import SerialLine
import Synchronization

/// SMP over a serial port in Zephyr's console framing (`smp_uart.c`, `serial_util.c`): the UART or USB CDC ACM of a
/// Zephyr application with the MCUmgr UART transport, or MCUboot's serial recovery.
///
/// Requests go out as `SMPSerialFraming` lines; answers are reassembled by `SMPSerialDecoder`. Console lines
/// between packets (the application's log) and packets the decoder drops come out of `nextEvent(until:)` as
/// `SMPTransportEvent.log(_:)`, escaped, and never end the session. A boot banner (`*** Booting `) after the
/// connection is the device resetting, which a UART does not otherwise show: it is reported as link loss, as the
/// port vanishing (a USB CDC device resetting) or closing is.
///
/// `connect(deadline:)` (re)opens the port, waiting for it to appear (a USB device re-enumerating, found again by
/// its USB serial number), then sends OS echo until the device answers one, every ``Options/probeInterval``, until
/// the deadline. It returns a budget that keeps every request within the device's SMP buffer: Zephyr decodes a
/// packet's length field, frame and CRC into one `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` buffer and pulls the two
/// length bytes off its front, so the largest frame is the buffer size − 4 (`SMPSerialFraming.packetOverhead`).
package final class SerialSMPTransport: SMPTransport {
    /// How to reach the device.
    package struct Options: Sendable {
        /// The device node, or a symlink to it.
        package var path: String
        /// Line speed (a USB CDC ACM port ignores it).
        package var baudRate = 115_200
        /// RTS/CTS hardware flow control.
        package var hardwareFlowControl = false
        /// The device's SMP buffer size (`buf_size`); Zephyr's default `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`.
        package var bufferSize = SMPUploadConfiguration().defaultParameters.bufferSize
        /// How long each echo waits for its answer before the next one.
        package var probeInterval: Duration = .milliseconds(500)
        /// Where sysfs is, to find a re-enumerated USB device by serial number.
        package var sysfsRoot = "/sys"
        /// Where the device nodes sysfs names are (`/dev`).
        package var deviceRoot = "/dev"

        /// Creates options for the port at `path`.
        package init(path: String) {
            self.path = path
        }

        /// The port, as every serial protocol opens it.
        var portOptions: SerialLineOptions {
            var options = SerialLineOptions(path: path)
            options.baudRate = baudRate
            options.hardwareFlowControl = hardwareFlowControl
            options.sysfsRoot = sysfsRoot
            options.deviceRoot = deviceRoot
            return options
        }
    }

    private struct State: Sendable {
        var port: SerialPort?
        var locator: SerialPortLocator
        var decoder = SMPSerialDecoder()
        var events: [SMPTransportEvent] = []
        var probeSequence: UInt8 = 0
        /// The sequence numbers of the probes sent since the port was opened: a late answer to one of them is the
        /// transport's, not the machine's.
        var probeSequences: Set<UInt8> = []
        /// Bytes that began an SMP packet line since the port was opened: a device that sends them but never a whole
        /// answer is there, and too slow or broken, not missing.
        var packetBytes = 0
    }

    package let clock = ContinuousClock()
    private let options: Options
    private let state: Mutex<State>

    /// Creates a transport; nothing is opened until `connect(deadline:)`.
    ///
    /// - Parameter options: The port and its settings.
    package init(options: Options) {
        self.options = options
        state = Mutex(State(locator: SerialPortLocator(options.portOptions)))
    }

    /// The port opened last: the one given, or the name the device came back under after a reset.
    package var currentPath: String { state.withLock { $0.locator.path } }

    /// Checks that the port can be opened (and is not busy or forbidden), then closes it.
    ///
    /// - Throws: `SerialPortError`.
    package static func checkAccess(_ options: Options) throws(SerialPortError) {
        try SerialPort.checkAccess(options.portOptions)
    }

    // MARK: SMPTransport

    package func connect(deadline: ContinuousClock.Instant) async throws(LinkError) -> Int {
        closePort()
        let port = try await open(until: deadline)
        state.withLock {
            $0.port = port
            $0.events.removeAll()
            $0.packetBytes = 0
        }
        port.discardInput()
        while true {
            if clock.now >= deadline || Task.isCancelled {
                closePort()
                let partial = state.withLock { $0.packetBytes }
                if partial > 0 {
                    throw .timedOut(
                        "no whole answer to SMP echo on '\(port.path)' in time, though the device began one "
                            + "(\(partial) bytes of SMP packet lines arrived): the line is too slow or broken")
                }
                throw .deviceNotFound(
                    "no answer to SMP echo on '\(port.path)': is the application built with the MCUmgr UART "
                        + "transport (CONFIG_MCUMGR_TRANSPORT_UART), or MCUboot in serial recovery?")
            }
            let sequence = state.withLock { state -> UInt8 in
                state.probeSequence &+= 1
                state.probeSequences.insert(state.probeSequence)
                return state.probeSequence
            }
            let probe = SMPLinkProbe.request(sequence: sequence)
            try write(probe, on: port)
            let waitEnd = min(deadline, clock.now.advanced(by: options.probeInterval))
            if try await awaitProbeAnswer(sequence, on: port, until: waitEnd) { break }
        }
        return SMPSerialFraming.largestFrame(bufferSize: options.bufferSize) + 3
    }

    package func send(_ frame: [UInt8]) async throws(LinkError) {
        guard let port = state.withLock({ $0.port }) else { throw .linkLost("serial port is closed") }
        try write(frame, on: port)
    }

    package func disconnect() async {
        if closePort() { state.withLock { $0.events.append(.disconnected(reason: "port closed")) } }
    }

    package func nextEvent(until deadline: ContinuousClock.Instant) async throws(LinkError)
        -> SMPTransportEvent?
    {
        while true {
            if let event = state.withLock({ $0.events.isEmpty ? nil : $0.events.removeFirst() }) {
                // Answers to the connection's probes that came late are not the machine's (an echo the machine sent,
                // `nrfloader echo`, is answered with its own text and sequence number).
                if case .frame(let bytes) = event, isLateProbeAnswer(bytes) { continue }
                return event
            }
            guard let port = state.withLock({ $0.port }) else {
                // Closed, and its loss already reported: nothing can arrive before the deadline.
                try? await Task.sleep(until: deadline, clock: clock)
                return nil
            }
            let now = clock.now
            if now >= deadline || Task.isCancelled { return nil }
            pump(port, waiting: min(now.duration(to: deadline), .milliseconds(50)), connected: true)
        }
    }

    // MARK: Internals

    /// Opens the port, waiting for it to appear (a device re-enumerating) until `deadline`.
    private func open(until deadline: ContinuousClock.Instant) async throws(LinkError) -> SerialPort {
        var locator = state.withLock { $0.locator }
        defer { state.withLock { $0.locator = locator } }
        do { return try await locator.open(until: deadline) } catch {
            switch error {
            case .didNotAppear(let message): throw .deviceNotFound(message)
            case .otherDevice(let message): throw .unavailable(message)
            case .port(let error): throw .unavailable(error.description)
            }
        }
    }

    /// Reads once and queues what arrived: frames, console lines and dropped packets as log lines, a boot banner
    /// (once connected) or a vanished port as link loss.
    private func pump(_ port: SerialPort, waiting timeout: Duration, connected: Bool) {
        let result: SerialPort.ReadResult
        do { result = try port.read(timeout: timeout) } catch {
            if closePort() { state.withLock { $0.events.append(.disconnected(reason: error.description)) } }
            return
        }
        guard case .bytes(let bytes) = result else { return }
        var rebooted: String?
        state.withLock { state in
            if bytes.first == SMPSerialFraming.packetMarker[0] || state.packetBytes > 0 {
                state.packetBytes += bytes.count
            }
            for event in state.decoder.receive(bytes) {
                switch event {
                case .frame(let frame):
                    state.events.append(.frame(frame))
                case .consoleLine(let line):
                    let text = Self.escaped(line)
                    state.events.append(.log("\(port.path): console: \(text)"))
                    if connected, Self.isBootBanner(line), rebooted == nil { rebooted = text }
                case .discarded(let reason):
                    state.events.append(.log("\(port.path): \(reason); packet dropped"))
                }
            }
        }
        if let banner = rebooted, closePort() {
            state.withLock { $0.events.append(.disconnected(reason: "device rebooted (console: \(banner))")) }
        }
    }

    /// Waits for the answer to probe `sequence`, dropping other frames (stale answers of the previous connection).
    ///
    /// Returns whether it came before `deadline`.
    private func awaitProbeAnswer(_ sequence: UInt8, on port: SerialPort, until deadline: ContinuousClock.Instant)
        async throws(LinkError) -> Bool
    {
        while clock.now < deadline {
            if Task.isCancelled { return false }
            pump(port, waiting: min(clock.now.duration(to: deadline), .milliseconds(50)), connected: false)
            let events = state.withLock { state -> [SMPTransportEvent] in
                defer { state.events.removeAll() }
                return state.events
            }
            for event in events {
                switch event {
                case .disconnected(let reason): throw .linkLost(reason)
                case .log: continue
                case .frame(let bytes):
                    // Any answer to the probe counts, an error too (a device built without echo answers rc 8).
                    if SMPLinkProbe.answeredSequence(bytes) == sequence {
                        return true
                    }
                }
            }
        }
        return false
    }

    private func write(_ frame: [UInt8], on port: SerialPort) throws(LinkError) {
        do { try port.write(Array(SMPSerialFraming.lines(for: frame).joined())) } catch {
            if closePort() { state.withLock { $0.events.append(.disconnected(reason: error.description)) } }
            throw .linkLost(error.description)
        }
    }

    /// Closes the port if open; returns whether it was.
    @discardableResult
    private func closePort() -> Bool {
        let port = state.withLock { state -> SerialPort? in
            defer {
                state.port = nil
                state.decoder = SMPSerialDecoder()
            }
            return state.port
        }
        port?.close()
        return port != nil
    }

    /// Whether `frame` answers one of this connection's probes late (see `SMPLinkProbe.isLateAnswer`).
    private func isLateProbeAnswer(_ frame: [UInt8]) -> Bool {
        SMPLinkProbe.isLateAnswer(frame, toOneOf: state.withLock { $0.probeSequences })
    }

    /// Zephyr's boot banner, `*** Booting Zephyr OS build …` (`CONFIG_BOOT_BANNER`; nRF Connect SDK prints
    /// `*** Booting nRF Connect SDK …`).
    static func isBootBanner(_ line: [UInt8]) -> Bool {
        line.starts(with: Array("*** Booting ".utf8))
    }

    /// Device text made safe for a terminal or a log: printable ASCII kept, anything else as `\xNN`.
    static func escaped(_ line: [UInt8]) -> String {
        var text = ""
        for byte in line {
            if (0x20...0x7E).contains(byte), byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789abcdef")
                text += "\\x" + String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
        }
        return text
    }
}

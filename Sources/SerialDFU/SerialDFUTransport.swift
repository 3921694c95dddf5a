package import DFUController
package import DFUTargetAdapter
package import DeviceLink
package import SerialLine
import Synchronization

/// Secure DFU over a serial port (SDK 15+ UART or USB CDC bootloader), presented to `DFUTargetAdapter` as the
/// GATT link it drives over BLE (dfu-protocols.md §5.1).
///
/// The mapping is one for one: a control point write is one SLIP frame, each packet write becomes a Write Object
/// (`08 data…`) frame, and every `60 …` frame from the device comes back as a control point notification. The
/// serial-only requests happen in `connect(_:deadline:)`: Ping (`09 id`) until the device echoes it, then Get
/// MTU (`07`), whose answer (the size of the device's SLIP buffer) bounds the data per frame to
/// `(mtu − 1) / 2 − 1` bytes (every byte may be escaped), rounded down to a whole word. That payload is reported
/// as an ATT MTU of payload + 3, so the controller's own packet sizing yields it unchanged.
///
/// The port is reopened on every connect: after a reset a USB CDC device re-enumerates, possibly under another
/// name, and is found again by its USB serial number.
package final class SerialDFUTransport: GATTTransport {
    /// How to reach the device.
    package struct Options: Sendable {
        /// The device node, or a symlink to it.
        package var path: String
        /// Line speed (the USB CDC bootloaders ignore it).
        package var baudRate = 115_200
        /// RTS/CTS hardware flow control (the SDK's UART bootloader enables it).
        package var hardwareFlowControl = false
        /// How long each ping waits for its echo before the next one.
        package var pingInterval: Duration = .milliseconds(250)
        /// Where sysfs is, to find a re-enumerated USB device by serial number.
        package var sysfsRoot = "/sys"
        /// Where the device nodes sysfs names are (`/dev`).
        package var deviceRoot = "/dev"

        /// Creates options for the port at `path`.
        package init(path: String) {
            self.path = path
        }
    }

    /// The frames seen on the line, for transcripts: `true` for frames the host sent.
    package typealias FrameObserver = @Sendable (_ sent: Bool, _ frame: [UInt8]) -> Void

    private struct State: Sendable {
        var port: SerialPort?
        var locator: SerialPortLocator
        var decoder = SLIPDecoder()
        var events: [GATTEvent] = []
        var pingID: UInt8 = 0
        var deviceMTU: Int?
    }

    package let clock = ContinuousClock()
    private let options: Options
    private let observer: FrameObserver?
    private let state: Mutex<State>

    /// Creates a transport; nothing is opened until `connect(_:deadline:)`.
    ///
    /// - Parameters:
    ///   - options: The port and its settings.
    ///   - observer: Called with every frame sent and received.
    package init(options: Options, observer: FrameObserver? = nil) {
        self.options = options
        self.observer = observer
        state = Mutex(State(locator: SerialPortLocator(options.port)))
    }

    /// The port opened last: the one given, or the name the device came back under after a reset.
    package var currentPath: String { state.withLock { $0.locator.path } }

    /// The SLIP buffer size the device reported with Get MTU on the last connect.
    package var deviceMTU: Int? { state.withLock { $0.deviceMTU } }

    /// The data bytes per Write Object frame for a device MTU.
    ///
    /// - Parameter deviceMTU: The Get MTU answer.
    /// - Returns: Payload bytes, a multiple of 4.
    package static func dataPerFrame(deviceMTU: Int) -> Int {
        max(4, ((deviceMTU - 1) / 2 - 1) & ~3)
    }

    /// Checks that the port can be opened (and is not busy or forbidden), then closes it.
    ///
    /// - Throws: `SerialPortError`.
    package static func checkAccess(_ options: Options) throws(SerialPortError) {
        try SerialPort.checkAccess(options.port)
    }

    /// Adafruit's 1200-baud touch: the application resets into its bootloader.
    package static func touch(path: String, baudRate: Int) throws(SerialPortError) {
        try SerialPort.touch(path: path, baudRate: baudRate)
    }

    // MARK: GATTTransport

    package func connect(_ request: ConnectionRequest, deadline: ContinuousClock.Instant)
        async throws(LinkError) -> GATTConnection
    {
        closePort()
        let port = try await open(until: deadline)
        state.withLock { $0.port = port }
        port.discardInput()
        var answered = false
        while !answered {
            if clock.now >= deadline || Task.isCancelled {
                closePort()
                throw .deviceNotFound(
                    "no answer to ping on '\(port.path)': is the device in bootloader mode? (nRF52840 Dongle: press "
                        + "RESET, the red LED pulses; Adafruit boards: a touch at 1200 baud (SerialPortOptions.touchBaudRate) "
                        + "or double-tap reset)")
            }
            let id = state.withLock { state -> UInt8 in
                state.pingID &+= 1
                return state.pingID
            }
            try send([SerialOpcode.ping, id], on: port)
            let waitEnd = min(deadline, clock.now.advanced(by: options.pingInterval))
            answered =
                try await awaitResponse(to: SerialOpcode.ping, on: port, until: waitEnd).map { $0 == [id] }
                ?? false
        }
        try send([SerialOpcode.getMTU], on: port)
        guard let mtuBytes = try await awaitResponse(to: SerialOpcode.getMTU, on: port, until: deadline),
            mtuBytes.count >= 2
        else {
            closePort()
            throw .rejected("'\(port.path)' did not answer get mtu (07) with a size")
        }
        let mtu = Int(mtuBytes[0]) | Int(mtuBytes[1]) << 8
        guard mtu >= 11 else {
            closePort()
            throw .rejected("'\(port.path)' reported mtu \(mtu), too small for a write object frame")
        }
        state.withLock { $0.deviceMTU = mtu }
        return GATTConnection(
            mtu: Self.dataPerFrame(deviceMTU: mtu) + 3, characteristics: [.secureControlPoint, .securePacket],
            address: request.address)
    }

    package func enableNotifications(_ characteristic: DFUCharacteristic) async throws(LinkError) {}

    package func write(_ characteristic: DFUCharacteristic, _ value: [UInt8]) async throws(LinkError) {
        guard characteristic == .secureControlPoint else {
            throw .failed("serial dfu has no \(characteristic) to write")
        }
        try send(value, on: try currentPort())
    }

    package func writeWithoutResponse(_ characteristic: DFUCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)
    {
        guard characteristic == .securePacket else {
            throw .failed("serial dfu has no \(characteristic) to write without response")
        }
        let port = try currentPort()
        var wire: [UInt8] = []
        for packet in packets {
            let frame = [SerialOpcode.writeObject] + packet
            observer?(true, frame)
            wire += SLIP.encode(frame)
        }
        do { try port.write(wire) } catch { throw lose(error) }
    }

    package func read(_ characteristic: DFUCharacteristic) async throws(LinkError) -> [UInt8] {
        throw .failed("serial dfu has no \(characteristic) to read")
    }

    package func disconnect() async {
        if closePort() { state.withLock { $0.events.append(.disconnected(reason: "port closed")) } }
    }

    package func nextEvent(until deadline: ContinuousClock.Instant) async throws(LinkError) -> GATTEvent? {
        while true {
            if let event = state.withLock({ $0.events.isEmpty ? nil : $0.events.removeFirst() }) { return event }
            guard let port = state.withLock({ $0.port }) else {
                // Closed, and its loss already reported: nothing can arrive before the deadline.
                try? await Task.sleep(until: deadline, clock: clock)
                return nil
            }
            let now = clock.now
            if now >= deadline || Task.isCancelled { return nil }
            try pump(port, waiting: min(now.duration(to: deadline), .milliseconds(50)))
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

    /// Reads once and queues what arrived: responses become notifications, a vanished port a disconnect.
    private func pump(_ port: SerialPort, waiting timeout: Duration) throws(LinkError) {
        let result: SerialPort.ReadResult
        do { result = try port.read(timeout: timeout) } catch {
            if closePort() { state.withLock { $0.events.append(.disconnected(reason: error.description)) } }
            return
        }
        guard case .bytes(let bytes) = result else { return }
        let frames = state.withLock { $0.decoder.feed(bytes) }
        for frame in frames {
            observer?(false, frame)
            // Anything but a response (noise, an echo, a log line) is not for the controller.
            guard frame.first == SerialOpcode.response, frame.count >= 3 else { continue }
            state.withLock { $0.events.append(.notification(.secureControlPoint, frame)) }
        }
    }

    /// Waits for the response to `opcode` during connect, dropping other frames.
    ///
    /// Returns the payload after the result byte, `nil` at the deadline.
    private func awaitResponse(to opcode: UInt8, on port: SerialPort, until deadline: ContinuousClock.Instant)
        async throws(LinkError) -> [UInt8]?
    {
        while clock.now < deadline {
            try pump(port, waiting: min(clock.now.duration(to: deadline), .milliseconds(50)))
            let events = state.withLock { state -> [GATTEvent] in
                defer { state.events.removeAll() }
                return state.events
            }
            for event in events {
                switch event {
                case .disconnected(let reason): throw .linkLost(reason)
                case .notification(_, let frame):
                    guard frame[1] == opcode else { continue }
                    guard frame[2] == 0x01 else {
                        throw .rejected("'\(port.path)' answered \(hex(opcode)) with result \(hex(frame[2]))")
                    }
                    return Array(frame.dropFirst(3))
                }
            }
        }
        return nil
    }

    private func send(_ frame: [UInt8], on port: SerialPort) throws(LinkError) {
        observer?(true, frame)
        do { try port.write(SLIP.encode(frame)) } catch { throw lose(error) }
    }

    private func currentPort() throws(LinkError) -> SerialPort {
        guard let port = state.withLock({ $0.port }) else { throw .linkLost("serial port is closed") }
        return port
    }

    /// Closes the port after a failed write; the loss also comes as the next event, as the adapter expects.
    private func lose(_ error: SerialPortError) -> LinkError {
        if closePort() { state.withLock { $0.events.append(.disconnected(reason: error.description)) } }
        return .linkLost(error.description)
    }

    /// Closes the port if open; returns whether it was.
    @discardableResult
    private func closePort() -> Bool {
        let port = state.withLock { state -> SerialPort? in
            defer {
                state.port = nil
                state.decoder = SLIPDecoder()
            }
            return state.port
        }
        port?.close()
        return port != nil
    }
}

extension SerialDFUTransport.Options {
    /// The port, as every serial protocol opens it.
    package var port: SerialLineOptions {
        var port = SerialLineOptions(path: path)
        port.baudRate = baudRate
        port.hardwareFlowControl = hardwareFlowControl
        port.sysfsRoot = sysfsRoot
        port.deviceRoot = deviceRoot
        return port
    }
}

/// Serial-only opcodes and the response marker (dfu-protocols.md §2.2).
enum SerialOpcode {
    static let getMTU: UInt8 = 0x07
    static let writeObject: UInt8 = 0x08
    static let ping: UInt8 = 0x09
    static let response: UInt8 = 0x60
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

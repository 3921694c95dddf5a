import DeviceLink
import Foundation
import SMP
import SMPSerial
import SMPTargetAdapter
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The device end of a pseudo-terminal, played by the test: it reads requests in console framing and writes what a
/// Zephyr console would.
final class ConsoleDevice: @unchecked Sendable {
    let master: Int32
    let path: String
    private var decoder = SMPSerialDecoder()

    init() throws {
        // /dev/ptmx and its ioctls TIOCSPTLCK and TIOCGPTN (Glibc's Swift module hides posix_openpt and ptsname).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "cannot open /dev/ptmx")
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        path = "/dev/pts/\(number)"
        var options = termios()
        tcgetattr(master, &options)
        cfmakeraw(&options)
        tcsetattr(master, TCSANOW, &options)
    }

    func close() { _ = Glibc.close(master) }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count, let base = raw.baseAddress {
                let count = Glibc.write(master, base + sent, raw.count - sent)
                if count <= 0 { return }
                sent += count
            }
        }
    }

    /// The next request frame, within 10 s.
    func request() -> SMPFrame? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var buffer = [UInt8](repeating: 0, count: 1024)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            for case .frame(let bytes) in decoder.receive(buffer.prefix(count)) {
                return try? SMPFrame(decoding: bytes)
            }
        }
        return nil
    }

    /// Answers `request` with `body`, in Zephyr's layout.
    func answer(_ request: SMPFrame, body: CBORValue) {
        var header = request.header
        header.operation = request.header.operation.response
        write(Array(SMPSerialFraming.lines(for: SMPFrame(header: header, body: body).encoded()).joined()))
    }

    /// Answers the next echo request; `pre30Length`: as Zephyr 2.7.1 and older, whose one-line packet's length field
    /// leaves out the 2 CRC bytes (Zephyr issue #39546).
    func answerEcho(pre30Length: Bool = false) -> Bool {
        guard let echo = request(), echo.header.group == 0, echo.header.command == 0 else { return false }
        guard pre30Length else {
            answer(echo, body: .map([CBORMapEntry("r", .text("nrfloader"))]))
            return true
        }
        var header = echo.header
        header.operation = echo.header.operation.response
        let frame = SMPFrame(header: header, body: .map([CBORMapEntry("r", .text("nrfloader"))])).encoded()
        let lines = SMPSerialFraming.lines(for: frame)
        guard lines.count == 1, var raw = Data(base64Encoded: Data(lines[0].dropFirst(2).dropLast())) else {
            return false
        }
        raw[raw.startIndex + 1] -= 2
        write(SMPSerialFraming.packetMarker + Array(raw.base64EncodedData()) + [0x0A])
        return true
    }
}

/// Runs the device's blocking reads on a thread of its own: the cooperative pool may be full of other tests' waits.
final class DeviceThread: Sendable {
    private let result = Mutex<Bool?>(nil)

    init(_ body: @escaping @Sendable () -> Bool) {
        let thread = Thread {
            let value = body()
            self.result.withLock { $0 = value }
        }
        thread.start()
    }

    /// What the body returned, once it has.
    var value: Bool {
        get async {
            while true {
                if let value = result.withLock({ $0 }) { return value }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

@Suite(.serialized) struct SerialSMPTransportTests {
    /// The events until `count` arrived or 10 s passed.
    private func events(_ transport: SerialSMPTransport, count: Int) async throws -> [SMPTransportEvent] {
        var events: [SMPTransportEvent] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while events.count < count, ContinuousClock.now < deadline {
            if let event = try await transport.nextEvent(until: .now.advanced(by: .milliseconds(200))) {
                events.append(event)
            }
        }
        return events
    }

    @Test("connect probes with echo and returns buf_size - 4 + 3; log lines and broken packets are logged, not fatal")
    func connectAndLogs() async throws {
        let device = try ConsoleDevice()
        defer { device.close() }
        var options = SerialSMPTransport.Options(path: device.path)
        options.probeInterval = .milliseconds(200)
        let transport = SerialSMPTransport(options: options)
        let answered = DeviceThread { device.answerEcho() }
        let mtu = try await transport.connect(deadline: .now.advanced(by: .seconds(10)))
        #expect(await answered.value)
        // Zephyr's 384-byte buffer holds the length field and the CRC too: frames of at most 380 bytes.
        #expect(mtu == 380 + 3)

        // A log line with a terminal escape, a broken packet, a late probe answer, then an answer for the machine.
        device.write(Array("<inf> app: \u{1B}[31mred\r\n".utf8))
        device.write(Array("\u{06}\u{09}!!!!\n".utf8))
        // The late answer is to the first probe (sequence 1); an echo answer with another text or sequence would be the
        // machine's own.
        let late = SMPRequest.echo("nrfloader").frame(sequence: 1, version: .v2)
        device.answer(late, body: .map([CBORMapEntry("r", .text("nrfloader"))]))
        let state = SMPRequest.readImageState.frame(sequence: 42, version: .v2)
        device.answer(state, body: .map([CBORMapEntry("images", .array([]))]))
        let received = try await events(transport, count: 3)
        #expect(received.count == 3)
        #expect(received.first == .log("\(device.path): console: <inf> app: \\x1b[31mred"))
        #expect(
            received.dropFirst().first == .log("\(device.path): SMP serial line is not valid base64; packet dropped"))
        guard case .frame(let bytes) = received.last else {
            Issue.record("no frame: \(received)")
            return
        }
        #expect(try SMPFrame(decoding: bytes).header.sequence == 42)

        // A request goes out in console framing.
        try await transport.send(SMPRequest.readImageState.frame(sequence: 43, version: .v2).encoded())
        let request = device.request()
        #expect(request?.header.sequence == 43 && request?.header.command == 0 && request?.header.group == 1)
        await transport.disconnect()
        #expect(try await events(transport, count: 1) == [.disconnected(reason: "port closed")])
    }

    @Test("a Zephyr 2.7.1-or-older device, whose length field leaves out the CRC, answers the probe: connect succeeds")
    func pre30LengthField() async throws {
        let device = try ConsoleDevice()
        defer { device.close() }
        var options = SerialSMPTransport.Options(path: device.path)
        options.probeInterval = .milliseconds(500)
        let transport = SerialSMPTransport(options: options)
        // Only the first probe is answered: connect must take that answer, not wait for a later one.
        let answered = DeviceThread { device.answerEcho(pre30Length: true) }
        let mtu = try await transport.connect(deadline: .now.advanced(by: .seconds(10)))
        #expect(await answered.value)
        #expect(mtu == 380 + 3)
        await transport.disconnect()
    }

    @Test("the boot banner is the device resetting: link loss; connect reopens the port and probes again")
    func bootBannerIsLinkLoss() async throws {
        let device = try ConsoleDevice()
        defer { device.close() }
        var options = SerialSMPTransport.Options(path: device.path)
        options.probeInterval = .milliseconds(200)
        let transport = SerialSMPTransport(options: options)
        var answered = DeviceThread { device.answerEcho() }
        _ = try await transport.connect(deadline: .now.advanced(by: .seconds(10)))
        #expect(await answered.value)
        device.write(Array("*** Booting Zephyr OS build v3.7.0 ***\r\n".utf8))
        let received = try await events(transport, count: 2)
        #expect(
            received.last
                == .disconnected(reason: "device rebooted (console: *** Booting Zephyr OS build v3.7.0 ***)"))
        await #expect(throws: LinkError.linkLost("serial port is closed")) {
            try await transport.send([0])
        }
        answered = DeviceThread { device.answerEcho() }
        #expect(try await transport.connect(deadline: .now.advanced(by: .seconds(10))) == 383)
        #expect(await answered.value)
    }

    @Test("a device that never answers: connect gives up at the deadline, naming the port")
    func silentDevice() async throws {
        let device = try ConsoleDevice()
        defer { device.close() }
        var options = SerialSMPTransport.Options(path: device.path)
        options.probeInterval = .milliseconds(200)
        let transport = SerialSMPTransport(options: options)
        let started = ContinuousClock.now
        await #expect(throws: LinkError.self) {
            try await transport.connect(deadline: .now.advanced(by: .seconds(1)))
        }
        let elapsed = started.duration(to: .now)
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(5))
        do {
            _ = try await transport.connect(deadline: .now.advanced(by: .milliseconds(300)))
            Issue.record("connected to a silent device")
        } catch {
            #expect(error.description.hasPrefix("no answer to SMP echo on '\(device.path)'"))
            #expect(error.kind == .deviceNotFound)
        }
    }

    @Test("the port vanishing (the device end closing) is link loss")
    func vanishingPort() async throws {
        let device = try ConsoleDevice()
        var options = SerialSMPTransport.Options(path: device.path)
        options.probeInterval = .milliseconds(200)
        let transport = SerialSMPTransport(options: options)
        let answered = DeviceThread { device.answerEcho() }
        _ = try await transport.connect(deadline: .now.advanced(by: .seconds(10)))
        #expect(await answered.value)
        device.close()
        let received = try await events(transport, count: 1)
        guard case .disconnected(let reason) = received.first else {
            Issue.record("no link loss: \(received)")
            return
        }
        #expect(reason.hasPrefix("serial port '\(device.path)' vanished"))
    }
}

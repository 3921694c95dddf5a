import Foundation
import SMP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `simulate-serial --protocol smp`, spoken to by the test as an SMP console client would.
@Suite(.serialized) struct SMPSimulateSerialTests {
    /// The host end of the pseudo-terminal.
    final class Host {
        let descriptor: Int32
        var decoder = SMPSerialDecoder()
        var consoleLines: [String] = []

        init(_ path: String) throws {
            descriptor = open(path, O_RDWR | O_NOCTTY)
            try #require(descriptor >= 0, "cannot open \(path)")
            var options = termios()
            tcgetattr(descriptor, &options)
            cfmakeraw(&options)
            tcsetattr(descriptor, TCSANOW, &options)
        }

        deinit { close(descriptor) }

        func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { raw in
                var sent = 0
                while sent < raw.count, let base = raw.baseAddress {
                    let count = Glibc.write(descriptor, base + sent, raw.count - sent)
                    if count <= 0 { return }
                    sent += count
                }
            }
        }

        func request(_ request: SMPRequest, sequence: UInt8) {
            write(
                Array(SMPSerialFraming.lines(for: request.frame(sequence: sequence, version: .v2).encoded()).joined()))
        }

        /// The next answer frame, within 10 s.
        func answer() throws -> SMPFrame {
            guard case .frame(let frame) = try next(stopAtConsoleLine: false) else { throw CancellationError() }
            return frame
        }

        /// Reads until a console line arrives, within 10 s; a frame meanwhile is an error.
        func consoleLine() throws -> String {
            guard case .console(let line) = try next(stopAtConsoleLine: true) else { throw CancellationError() }
            return line
        }

        enum Received {
            case frame(SMPFrame)
            case console(String)
        }

        private func next(stopAtConsoleLine: Bool) throws -> Received {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var buffer = [UInt8](repeating: 0, count: 1024)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                for event in decoder.receive(buffer.prefix(count)) {
                    switch event {
                    case .frame(let bytes): return .frame(try SMPFrame(decoding: bytes))
                    case .consoleLine(let line):
                        let text = String(decoding: line, as: UTF8.self)
                        consoleLines.append(text)
                        if stopAtConsoleLine { return .console(text) }
                    case .discarded(let reason): Issue.record("simulator sent a broken packet: \(reason)")
                    }
                }
            }
            throw CancellationError()
        }
    }

    @Test("answers image state, echo and reset over the console framing; drops an overlong line unanswered")
    func console() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        let host = try Host(simulator.port)
        host.request(.readImageState, sequence: 1)
        let state = try host.answer()
        #expect(state.header.sequence == 1 && state.header.operation == .readResponse)
        let slots = try ImageStateResponse(body: state.body).slots
        #expect(slots.count == 1)
        #expect(slots.first.map { $0.slot == 0 && $0.version == "0.0.1" && $0.isActive && $0.isConfirmed } == true)
        // Zephyr drops a line over 127 bytes without answering; the next request is answered.
        host.write([0x06, 0x09] + [UInt8](repeating: UInt8(ascii: "A"), count: 200) + [0x0A])
        host.request(.echo("hello"), sequence: 2)
        let echo = try host.answer()
        #expect(echo.header.sequence == 2)
        #expect(echo.body["r"] == .text("hello"))
        // MCUmgr parameters are off, as in Zephyr: rc 8.
        host.request(.parameters, sequence: 3)
        #expect(try SMPResponse.error(in: try host.answer().body) == SMPDeviceError(source: .mcumgr, rc: 8))
        // Reset answers, then the boot banner comes as a console line between packets.
        host.request(.reset, sequence: 4)
        #expect(try host.answer().header.sequence == 4)
        // A resetting device hears nothing: the next request waits for the boot banner.
        #expect(try host.consoleLine().contains("Booting Zephyr OS"))
        host.request(.readImageState, sequence: 5)
        #expect(try host.answer().header.sequence == 5)
        let served = simulator.stop()
        #expect(served.stderrText == "simulate-serial: 0 activation(s)\n")
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(transcript.contains("# dropped: serial line longer than 127 bytes"))
        #expect(transcript.contains("# reset: boot 2: no swap"))
    }

    @Test("DFU-only options are refused with --protocol smp")
    func dfuOptions() {
        let result = nrfloader(["simulate-serial", "--protocol", "smp", "--port", "/tmp/x", "--sim-fault", "stall@3"])
        #expect(result.status == 64)
        #expect(result.stderrText.hasPrefix("Error: --sim-fault does not apply to --protocol smp"))
    }
}

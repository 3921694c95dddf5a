import Foundation
import SerialLine
import Testing

/// The serial port on a pseudo-terminal: raw bytes both ways, timeouts, and the errors of opening.
@Suite struct SerialPortTests {
    @Test("bytes written on one side are read on the other, unchanged (raw mode: no echo, no CR/LF mapping)")
    func rawBytes() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort(path: terminal.path, settings: SerialPort.Settings())
        defer { port.close() }
        let bytes: [UInt8] = [0xC0, 0x0A, 0x0D, 0x03, 0x00, 0xFF, 0xDB]
        terminal.send(bytes)
        var read: [UInt8] = []
        while read.count < bytes.count, case .bytes(let chunk) = try port.read(timeout: .seconds(1)) { read += chunk }
        #expect(read == bytes)
        try port.write(bytes)
        #expect(terminal.receive(bytes.count) == bytes)
    }

    @Test("a read with nothing to read times out; a read after the other side closed says the port vanished")
    func timeoutAndHangUp() throws {
        let terminal = try PseudoTerminal()
        let port = try SerialPort(path: terminal.path, settings: SerialPort.Settings())
        defer { port.close() }
        #expect(try port.read(timeout: .milliseconds(20)) == .timedOut)
        terminal.close()
        #expect {
            try port.read(timeout: .seconds(1))
        } throws: { error in
            guard case .vanished(let path, _) = error as? SerialPortError else { return false }
            return path == terminal.path
        }
    }

    @Test(
        "opening: a missing node is not found, a file is not a terminal, an open port is busy, 12345 baud unsupported")
    func openErrors() throws {
        #expect(throws: SerialPortError.notFound(path: "/dev/nrfloader-test-none")) {
            try SerialPort(path: "/dev/nrfloader-test-none", settings: SerialPort.Settings())
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-tty-\(UUID().uuidString)")
        try Data([1]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: SerialPortError.notATerminal(path: file.path)) {
            try SerialPort(path: file.path, settings: SerialPort.Settings())
        }
        let terminal = try PseudoTerminal()
        let first = try SerialPort(path: terminal.path, settings: SerialPort.Settings())
        defer { first.close() }
        #expect(throws: SerialPortError.busy(path: terminal.path)) {
            try SerialPort(path: terminal.path, settings: SerialPort.Settings())
        }
        #expect(throws: SerialPortError.unsupportedBaudRate(12345)) {
            try SerialPort(path: terminal.path, settings: SerialPort.Settings(baudRate: 12345))
        }
        #expect(
            SerialPortError.busy(path: "/dev/ttyACM0").description
                == "serial port '/dev/ttyACM0': busy (another program has it open)")
    }

    @Test("checkAccess opens and closes: the port is free again afterwards")
    func checkAccess() throws {
        let terminal = try PseudoTerminal()
        var options = SerialLineOptions(path: terminal.path)
        options.baudRate = 1_000_000
        options.hardwareFlowControl = true
        #expect(options.settings == SerialPort.Settings(baudRate: 1_000_000, hardwareFlowControl: true))
        try SerialPort.checkAccess(options)
        let port = try SerialPort(path: terminal.path, settings: options.settings)
        port.close()
    }
}

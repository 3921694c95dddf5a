import Foundation
import SerialLine
import Testing

/// USB serial ports read from a sysfs tree laid out as Linux lays it out, and the locator that finds a device again
/// after it re-enumerates.
@Suite struct USBSerialPortsTests {
    @Test("every USB tty is listed with its ids and strings, sorted; a tty without USB ids is not")
    func listing() throws {
        let tree = try FakeSysfs()
        defer { tree.remove() }
        try tree.plug("ttyACM1", usb: "1-2", vendor: "1915", product: "521f", serial: "D1", productName: "Open DFU")
        try tree.plug("ttyACM0", usb: "1-1", vendor: "239a", product: "0029", serial: "A0")
        try tree.plug("ttyUSB0", usb: "1-3", vendor: "0403", product: "6001", serial: nil, ttyUSB: true)
        try tree.plug("ttyACM2", usb: "1-4", vendor: "1366", product: "1015", serial: "000683")
        try tree.tty("ttyS0", device: tree.sysfs + "/devices/platform/serial8250")
        let lister = USBSerialPorts(sysfsRoot: tree.sysfs, deviceRoot: "/dev")
        let ports = lister.all()
        #expect(ports.map(\.path) == ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyACM2", "/dev/ttyUSB0"])
        #expect(
            ports[1]
                == USBSerialPort(
                    path: "/dev/ttyACM1", vendorID: 0x1915, productID: 0x521F, serialNumber: "D1", product: "Open DFU"))
        #expect(ports.map(\.kind) == [.adafruit, .nordicBootloader, .seggerVirtualCOM, nil])
        #expect(ports[3].serialNumber == nil)
        #expect(lister.dfuCandidates().map(\.path) == ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyACM2"])
        #expect(lister.port(serialNumber: "D1")?.path == "/dev/ttyACM1")
        #expect(lister.port(serialNumber: "nobody") == nil)
        #expect(USBSerialPorts(sysfsRoot: tree.root + "/missing").all().isEmpty)
    }

    @Test("a port is found by its path, also through a by-id symlink to the node")
    func byPath() throws {
        let tree = try FakeSysfs()
        defer { tree.remove() }
        try tree.plug("ttyACM0", usb: "1-1", vendor: "1915", product: "c00a", serial: "S1", node: "/dev/null")
        let lister = USBSerialPorts(sysfsRoot: tree.sysfs, deviceRoot: tree.devices)
        #expect(lister.port(atPath: tree.devices + "/ttyACM0")?.serialNumber == "S1")
        #expect(lister.port(atPath: tree.devices + "/ttyACM0")?.kind == .nordicApplication)
        try FileManager.default.createDirectory(
            atPath: tree.root + "/by-id", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: tree.root + "/by-id/usb-Nordic-if00", withDestinationPath: tree.devices + "/ttyACM0")
        // The link resolves to the node the tty entry names (here /dev/null, so by name it is "null": not found).
        #expect(lister.port(atPath: tree.root + "/by-id/usb-Nordic-if00") == nil)
        #expect(lister.port(atPath: "/dev/ttyACM9") == nil)
    }
}

@Suite struct SerialPortLocatorTests {
    static func options(_ path: String, _ tree: FakeSysfs) -> SerialLineOptions {
        var options = SerialLineOptions(path: path)
        options.sysfsRoot = tree.sysfs
        options.deviceRoot = tree.devices
        return options
    }

    @Test("a port sysfs knows nothing about (a pseudo-terminal) is opened and reopened by its path")
    func plainPath() async throws {
        let tree = try FakeSysfs()
        defer { tree.remove() }
        let terminal = try PseudoTerminal()
        var locator = SerialPortLocator(Self.options(terminal.path, tree))
        let port = try await locator.open(until: .now + .seconds(1))
        #expect(port.path == terminal.path)
        port.close()
        let again = try await locator.open(until: .now + .seconds(1))
        #expect(again.path == terminal.path)
        again.close()
    }

    @Test("after the first open only the same USB serial number is opened: the device's new name if it moved")
    func followsTheSerialNumber() async throws {
        let tree = try FakeSysfs()
        defer { tree.remove() }
        let first = try PseudoTerminal()
        let second = try PseudoTerminal()
        try tree.plug("ttyACM0", usb: "1-1", vendor: "1915", product: "521f", serial: "BOARD", node: first.path)
        var locator = SerialPortLocator(Self.options(tree.devices + "/ttyACM0", tree))
        try await locator.open(until: .now + .seconds(1)).close()
        // The device resets and comes back as ttyACM1 (ttyACM0 was still held when it re-enumerated).
        tree.unplug("ttyACM0")
        try tree.plug("ttyACM1", usb: "1-1", vendor: "1915", product: "521f", serial: "BOARD", node: second.path)
        let moved = try await locator.open(until: .now + .seconds(1))
        #expect(moved.path == tree.devices + "/ttyACM1")
        #expect(locator.path == tree.devices + "/ttyACM1")
        moved.close()
    }

    @Test("another board where the device was is not opened; a device that never returns is reported as such")
    func otherBoard() async throws {
        let tree = try FakeSysfs()
        defer { tree.remove() }
        let terminal = try PseudoTerminal()
        try tree.plug("ttyACM0", usb: "1-1", vendor: "1915", product: "521f", serial: "BOARD", node: terminal.path)
        var locator = SerialPortLocator(Self.options(tree.devices + "/ttyACM0", tree))
        try await locator.open(until: .now + .seconds(1)).close()

        tree.unplug("ttyACM0")
        await #expect(
            throws: SerialPortLocator.Failure.didNotAppear(
                "the device with usb serial number 'BOARD' (last at '\(tree.devices)/ttyACM0') did not come back")
        ) {
            try await locator.open(until: .now + .milliseconds(100))
        }

        try tree.plug("ttyACM0", usb: "1-1", vendor: "1915", product: "521f", serial: "BOARD", node: terminal.path)
        try tree.setSerial("OTHER", usb: "1-1")
        await #expect {
            try await locator.open(until: .now + .milliseconds(100))
        } throws: { error in
            guard case .otherDevice(let message) = error as? SerialPortLocator.Failure else { return false }
            return message.contains("usb serial number 'OTHER', not 'BOARD'")
        }
    }

    @Test("a path that never appears fails at the deadline, naming it")
    func neverAppears() async {
        var locator = SerialPortLocator(SerialLineOptions(path: "/dev/nrfloader-test-none"))
        await #expect(
            throws: SerialPortLocator.Failure.didNotAppear("serial port '/dev/nrfloader-test-none' did not appear")
        ) {
            try await locator.open(until: .now + .milliseconds(100))
        }
    }
}

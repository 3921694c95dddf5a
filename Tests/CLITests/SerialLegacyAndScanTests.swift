import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
private let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path

@Suite(.serialized) struct SerialLegacyTests {
    @Test(
        "legacy serial DFU (HCI packets): an Adafruit package (also after --touch 1200) and a hex with --dfu legacy",
        arguments: [
            ["\(packages)/adafruit-blinky-dfu05.zip"],
            ["\(packages)/adafruit-blinky-dfu05.zip", "--touch", "1200"],
            ["\(firmware)/blinky-pca10040.hex", "--dfu", "legacy", "--sd-req", "0x0101"],
        ])
    func inputs(input: [String]) throws {
        let simulator = try SerialSimulator(["--protocol", "legacy", "--exit-after", "1", "--sd-id", "0x0101"])
        let result = nrfloader(["upload", "--port", simulator.port, "-q"] + input)
        let served = simulator.stop(signal: result.status != 0)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "part 1/1: application acknowledged by the device: 604 bytes "
                + "(legacy serial dfu reports no validation result)\n")
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
    }

    @Test("a lost acknowledgement makes the host resend the same packet, which the device does not apply twice")
    func resend() throws {
        let simulator = try SerialSimulator([
            "--protocol", "legacy", "--exit-after", "1", "--sd-id", "0x0101", "--serial-fault", "drop-ack@3",
        ])
        let result = nrfloader(["upload", "--port", simulator.port, "-q", "\(packages)/adafruit-blinky-dfu05.zip"])
        _ = simulator.stop(signal: result.status != 0)
        #expect(result.status == 0, "\(result.stderrText)")
        let host = try String(contentsOfFile: simulator.transcript, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("> ") }
        // start, init, data 1 (sent twice: its acknowledgement was the third), data 2, stop.
        try #require(host.count == 6)
        #expect(host[2] == host[3])
    }

    @Test(
        "a legacy device that acknowledges nothing is unavailable (69); one that vanishes is a temporary failure (75)")
    func faults() throws {
        var simulator = try SerialSimulator(["--protocol", "legacy", "--serial-fault", "mute"])
        var result = nrfloader([
            "upload", "--port", simulator.port, "-q", "--timeout", "1", "\(packages)/adafruit-blinky-dfu05.zip",
        ])
        _ = simulator.stop()
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("acknowledged none of 3 start packets"))

        simulator = try SerialSimulator(["--protocol", "legacy", "--serial-fault", "vanish@1", "--sd-id", "0x0101"])
        result = nrfloader([
            "upload", "--port", simulator.port, "-q", "--timeout", "1", "\(packages)/adafruit-blinky-dfu05.zip",
        ])
        _ = simulator.stop(signal: false)
        #expect(result.status == 75, "\(result.stderrText)")
    }
}

/// A sysfs tree with a Dongle in its bootloader, an Adafruit Feather and an unrelated FTDI cable.
private func describedSysfs() throws -> TemporaryDirectory {
    let root = try TemporaryDirectory()
    let manager = FileManager.default
    func device(_ tty: String, _ usb: String, interfaceDepth: Int, _ files: [String: String]) throws {
        let usbDirectory = root.file("devices/pci0000:00/usb1/\(usb)")
        var interface = usbDirectory + "/\(usb):1.0"
        if interfaceDepth == 2 { interface += "/\(tty)" }
        try manager.createDirectory(atPath: interface, withIntermediateDirectories: true)
        for (name, value) in files {
            try root.write("devices/pci0000:00/usb1/\(usb)/\(name)", Array((value + "\n").utf8))
        }
        try manager.createDirectory(atPath: root.file("class/tty/\(tty)"), withIntermediateDirectories: true)
        try manager.createSymbolicLink(atPath: root.file("class/tty/\(tty)/device"), withDestinationPath: interface)
    }
    try device(
        "ttyACM0", "1-1", interfaceDepth: 1,
        [
            "idVendor": "1915", "idProduct": "521f", "serial": "C5A1B2C3D4E5", "product": "Open DFU Bootloader",
        ])
    try device(
        "ttyACM1", "1-2", interfaceDepth: 1,
        [
            "idVendor": "239a", "idProduct": "8029", "serial": "F00D\u{1B}[31m", "product": "Feather nRF52840 Express",
        ])
    try device("ttyUSB0", "1-3", interfaceDepth: 2, ["idVendor": "0403", "idProduct": "6001", "product": "FT232R"])
    try manager.createDirectory(atPath: root.file("class/tty/ttyS0"), withIntermediateDirectories: true)
    return root
}

@Suite struct SerialScanTests {
    @Test("scan --serial lists Nordic and Adafruit USB ports from sysfs, USB strings escaped")
    func table() throws {
        let sysfs = try describedSysfs()
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["scan", "--serial"], environment: ["NRFLOADER_SYSFS": sysfs.path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText == """
                PORT          USB ID     KIND               SERIAL        PRODUCT
                /dev/ttyACM0  1915:521f  nordic-bootloader  C5A1B2C3D4E5  Open DFU Bootloader
                /dev/ttyACM1  239a:8029  adafruit           F00D\\x1b[31m  Feather nRF52840 Express

                """)
        #expect(result.stderrText == "2 serial ports found\n")
    }

    @Test("scan --serial --json prints one object per port with explicit nulls")
    func json() throws {
        let sysfs = try describedSysfs()
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["scan", "--serial", "--json"], environment: ["NRFLOADER_SYSFS": sysfs.path])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(
            lines.first
                == #"{"event":"device","kind":"nordic-bootloader","path":"/dev/ttyACM0","product":"Open DFU Bootloader","product_id":"521f","schema":1,"serial_number":"C5A1B2C3D4E5","vendor_id":"1915"}"#
        )
        #expect(lines.last == #"{"devices":2,"event":"result","schema":1}"#)
    }

    @Test("upload --port auto refuses to guess between two ports (64) and finds none on an empty bus (69)")
    func auto() throws {
        let sysfs = try describedSysfs()
        var result = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--port", "auto", "blinky-pca10056"],
            environment: ["NRFLOADER_SYSFS": sysfs.path])
        #expect(result.status == 64)
        #expect(
            result.stderrText.hasPrefix(
                "Error: --port auto: 2 candidate ports (/dev/ttyACM0, /dev/ttyACM1): give one with --port PATH\n"))
        let empty = try TemporaryDirectory()
        result = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--port", "auto", "blinky-pca10056"],
            environment: ["NRFLOADER_SYSFS": empty.path])
        #expect(result.status == 69)
        #expect(result.stderrText.contains("--port auto: no Nordic or Adafruit USB serial port found"))
    }
}

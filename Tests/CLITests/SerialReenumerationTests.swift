import DFUPackage
import Foundation
import TestSupport
import Testing

private let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
private let serialData = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/serial").path

/// A simulated USB CDC bootloader that resets between the parts of an update: `simulate-serial` at
/// `<dir>/dev/ttyACM0`, described in the sysfs tree `<dir>/sys`, saving what it activated to `<dir>/images`.
///
/// The upload runs as a user's would with `NRFLOADER_SYSFS=<dir>/sys NRFLOADER_DEV=<dir>/dev`: the stand-ins for
/// /sys and /dev, so that the device found again by USB serial number is the simulated one.
private struct ResettingDevice {
    let folder: TemporaryDirectory
    let simulator: SerialSimulator
    var port: String { simulator.port }
    var environment: [String: String] { ["NRFLOADER_SYSFS": folder.file("sys"), "NRFLOADER_DEV": folder.file("dev")] }

    init(_ arguments: [String], otherBoard: String? = nil) throws {
        folder = try TemporaryDirectory()
        if let otherBoard { try Self.plugOtherDongle(serialNumber: otherBoard, into: folder) }
        simulator = try SerialSimulator(
            ["--sysfs", folder.file("sys"), "--usb-serial", "C0DE0000CAFE", "--save-images", folder.file("images")]
                + arguments, in: folder, portName: "dev/ttyACM0")
    }

    /// Another nRF52840 Dongle in its bootloader at `ttyACM7`, plugged in all along.
    private static func plugOtherDongle(serialNumber: String, into folder: TemporaryDirectory) throws {
        let manager = FileManager.default
        let usb = "sys/devices/pci0000:00/usb1/1-2"
        try manager.createDirectory(atPath: folder.file(usb + "/1-2:1.0"), withIntermediateDirectories: true)
        for (name, value) in ["idVendor": "1915", "idProduct": "521f", "serial": serialNumber] {
            try folder.write(usb + "/" + name, Array((value + "\n").utf8))
        }
        try manager.createDirectory(atPath: folder.file("sys/class/tty/ttyACM7"), withIntermediateDirectories: true)
        try manager.createSymbolicLink(
            atPath: folder.file("sys/class/tty/ttyACM7/device"), withDestinationPath: folder.file(usb + "/1-2:1.0"))
    }

    func upload(_ arguments: [String]) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--port", port] + arguments, environment: environment)
    }

    /// The image the device activated, by its file name in `--save-images` (`application.bin`, …).
    func activated(_ name: String) throws -> [UInt8] {
        try folder.read("images/" + name)
    }

    /// Uploads the two-part `package` and stops the simulator; both must succeed, with two activations.
    func uploadTwoParts(_ package: String, timeout: Int) -> ProcessResult {
        let result = upload(["--timeout", String(timeout), package])
        let served = simulator.stop(signal: result.status != 0)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(served.stderrText == "simulate-serial: 2 activation(s)\n")
        return result
    }

    /// The host's frames (`> hex`) after the port came back.
    func hostFramesAfterReset() throws -> [String] {
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        let afterReset = try #require(transcript.components(separatedBy: "# port re-enumerated").dropFirst().last)
        return afterReset.split(separator: "\n").filter { $0.hasPrefix("> ") }.map { String($0.dropFirst(2)) }
    }

    /// The simulator's comments about its port coming back.
    func reenumerations() throws -> [String] {
        try String(contentsOfFile: simulator.transcript, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("# port re-enumerated") }.map(String.init)
    }
}

/// An entry of a reference package, read with the package reader.
private func entry(_ name: String, of zip: String) throws -> [UInt8] {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
    return try #require(try ZipArchive(bytes: bytes, name: zip).contents(of: name))
}

@Suite(.serialized) struct SerialReenumerationTests {
    @Test(
        "Secure multi-part over USB CDC: after its reset the device is found by USB serial number, under its new name",
        arguments: ["same", "next"])
    func secureMultiPart(naming: String) throws {
        let device = try ResettingDevice(["--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", naming])
        let package = "\(packages)/nrfutil617-sd-bl-app-signed.zip"
        let result = device.uploadTwoParts(package, timeout: 5)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("part 1/2: softdevice+bootloader confirmed by the device: 18432 bytes") == true)
        #expect(lines.last?.hasPrefix("part 2/2: application confirmed by the device: 604 bytes") == true)
        let next = naming == "next" ? "ttyACM1" : "ttyACM0"
        #expect(result.stderrText.contains("link: serial \(device.folder.file("dev/" + next)) at 115200 baud"))
        #expect(
            try device.reenumerations()
                == ["# port re-enumerated as \(device.folder.file("dev/" + next)), usb serial number C0DE0000CAFE"])
        let softDeviceAndBootloader = try entry("sd_bl.bin", of: package)
        #expect(try device.activated("softdevice.bin") + device.activated("bootloader.bin") == softDeviceAndBootloader)
        #expect(try device.activated("application.bin") == entry("blinky-pca10040.bin", of: package))
    }

    @Test(
        "Secure: a device back with another USB serial number is another board: stop (69), send it nothing",
        arguments: ["same", "next"])
    func secureOtherBoard(naming: String) throws {
        let device = try ResettingDevice([
            "--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", naming, "--reenumerate-serial", "BADC0FFEE000",
        ])
        let result = device.upload(["--timeout", "2", "\(packages)/nrfutil617-sd-bl-app-signed.zip"])
        let served = device.simulator.stop()
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("usb serial number 'BADC0FFEE000'"))
        #expect(result.stderrText.contains("C0DE0000CAFE"))
        #expect(result.stderrText.contains("not updating another board"))
        #expect(result.stdout.isEmpty)
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        // Nothing reached the board that came back: the last host frame is the first part's Execute.
        #expect(try device.hostFramesAfterReset().isEmpty)
    }

    @Test(
        "scan --serial lists the simulated bootloader as its sysfs tree describes it",
        arguments: [
            ([String](), "1915", "521f", "nordic-bootloader"), (["--protocol", "legacy"], "239a", "0029", "adafruit"),
        ])
    func scan(arguments: [String], vendor: String, product: String, kind: String) throws {
        let device = try ResettingDevice(arguments)
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["scan", "--serial", "--json"], environment: device.environment)
        _ = device.simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let name = kind == "adafruit" ? "nRF52 Bootloader (simulated)" : "Open DFU Bootloader (simulated)"
        #expect(
            result.stdoutText == """
                {"event":"device","kind":"\(kind)","path":"\(device.port)","product":"\(name)",\
                "product_id":"\(product)","schema":1,"serial_number":"C0DE0000CAFE","vendor_id":"\(vendor)"}
                {"devices":1,"event":"result","schema":1}

                """)
    }

    @Test(
        "multi-part with a reset between the parts: every frame as nrfutil 6.1.7 and adafruit-nrfutil sent them",
        arguments: [
            (
                [String](), "packages/nrfutil617-sd-bl-app-signed.zip",
                "nrfutil617-dfu-serial-sd-bl-app-reenumerated.txt"
            ),
            (
                ["--protocol", "legacy"], "serial/adafruit-sd-bl-app-dfu05.zip",
                "adafruit-nrfutil-dfu-serial-sd-bl-app-reenumerated.txt"
            ),
        ])
    func references(arguments: [String], package: String, reference: String) throws {
        let device = try ResettingDevice(
            arguments + ["--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", "same"])
        _ = device.uploadTwoParts(
            TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/" + package).path, timeout: 5)
        // nrfutil sets PRN 0 once per part at open; the engine turns PRN off around the init packet and sets the
        // requested value (0 over serial) before the data, as Nordic's mobile libraries do.
        let prn: Set<String> = ["> 020000", "< 600201"]
        let ours = try frames(device.simulator.transcript).filter { !prn.contains($0) }
        let theirs = try frames(serialData + "/" + reference).filter { !prn.contains($0) }
        #expect(ours.filter { $0 == "# reset" }.count == 1)
        #expect(ours == theirs)
    }

    @Test("a device that vanishes mid-transfer and never returns is 75, also with another Dongle plugged in all along")
    func vanishedWithAnotherBoard() throws {
        let device = try ResettingDevice(
            ["--sd-id", "0x0101", "--serial-fault", "vanish@100"], otherBoard: "0THERD0NGLE1")
        let result = device.upload(["--timeout", "2", "\(packages)/nrfutil617-selftest-signed.zip"])
        _ = device.simulator.stop(signal: false)
        #expect(result.status == 75, "\(result.stderrText)")
        #expect(
            result.stderrText.contains(
                "the device with usb serial number 'C0DE0000CAFE' (last at '\(device.port)') did not come back\n"))
    }

    @Test("legacy multi-part over USB CDC: SoftDevice+bootloader, reset and return under another name, application")
    func legacyMultiPart() throws {
        let device = try ResettingDevice([
            "--protocol", "legacy", "--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", "next",
        ])
        let package = "\(serialData)/adafruit-sd-bl-app-dfu05.zip"
        let result = device.uploadTwoParts(package, timeout: 5)
        #expect(
            result.stdoutText == """
                part 1/2: softdevice+bootloader acknowledged by the device: 18436 bytes (legacy serial dfu reports \
                no validation result)
                part 2/2: application acknowledged by the device: 604 bytes (legacy serial dfu reports no validation \
                result)

                """)
        #expect(
            try device.reenumerations()
                == ["# port re-enumerated as \(device.folder.file("dev/ttyACM1")), usb serial number C0DE0000CAFE"])
        let softDeviceAndBootloader = try entry("sd_bl.bin", of: package)
        #expect(try device.activated("softdevice.bin") + device.activated("bootloader.bin") == softDeviceAndBootloader)
        #expect(try device.activated("application.bin") == entry("blinky-pca10040.bin", of: package))
    }

    @Test("Secure: a device slow to reset (deaf 2.5 s after the first part, then gone) is pinged until it is back")
    func secureSlowReset() throws {
        let device = try ResettingDevice([
            "--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", "next", "--reenumerate-delay", "2500",
        ])
        let package = "\(packages)/nrfutil617-sd-bl-app-signed.zip"
        _ = device.uploadTwoParts(package, timeout: 5)
        let notes = try device.reenumerations()
        try #require(notes.count == 1)
        #expect(notes[0].hasSuffix("bytes from the host ignored while resetting)"))
        #expect(try device.activated("application.bin") == entry("blinky-pca10040.bin", of: package))
    }

    @Test("legacy: a device slow to reset (silent 2.5 s, then gone) gets the next Start again until it is back")
    func legacySlowReset() throws {
        let device = try ResettingDevice([
            "--protocol", "legacy", "--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", "next",
            "--reenumerate-delay", "2500",
        ])
        let package = "\(serialData)/adafruit-sd-bl-app-dfu05.zip"
        _ = device.uploadTwoParts(package, timeout: 1)
        #expect(try device.activated("application.bin") == entry("blinky-pca10040.bin", of: package))
        // The host sent Start while the device reset (it heard none of it), then again after its return.
        let notes = try device.reenumerations()
        try #require(notes.count == 1)
        #expect(notes[0].hasSuffix("bytes from the host ignored while resetting)"))
        let firstPacket = try #require(try device.hostFramesAfterReset().first)
        // After the 4-byte HCI header: Start (type 3), mode 4 (application), sizes 0, 0, 604.
        #expect(firstPacket.dropFirst(8).hasPrefix("03000000040000000000000000000000" + "5c020000"))
    }

    @Test("legacy: a device that comes back with another USB serial number is not updated (69)")
    func legacyOtherBoard() throws {
        let device = try ResettingDevice([
            "--protocol", "legacy", "--exit-after", "2", "--sd-id", "0x0101", "--reenumerate", "same",
            "--reenumerate-serial", "BADC0FFEE000",
        ])
        let result = device.upload(["--timeout", "2", "\(serialData)/adafruit-sd-bl-app-dfu05.zip"])
        let served = device.simulator.stop()
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(
            result.stderrText.contains(
                "is now another device (usb serial number 'BADC0FFEE000', not 'C0DE0000CAFE')"))
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        #expect(try device.hostFramesAfterReset().isEmpty)
    }
}

import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// `nrfloader upload --port PATH IMAGE.bin` with a signed MCUboot image: SMP over the console framing, against
/// `nrfloader simulate-serial --protocol smp` on a pseudo-terminal, run as a user runs them.
@Suite(.serialized) struct SMPSerialUploadTests {
    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The frames the host sent, from the simulator's transcript (`> hex` lines), in bytes.
    private func hostFrameSizes(_ simulator: SerialSimulator) throws -> [Int] {
        try String(contentsOfFile: simulator.transcript, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("> ") }.map { ($0.count - 2) / 2 }
    }

    @Test("test-and-confirm (the default): the image is confirmed and slot 0 holds it byte for byte")
    func testAndConfirm() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        // No --exit-after: the activation is the reboot into the image, before nrfloader reads and confirms it.
        let simulator = try SerialSimulator(["--protocol", "smp", "--save-images", images.path])
        defer { simulator.directory.remove() }
        let input = "\(mcuboot)/ed25519.bin"
        let result = nrfloader(["upload", "--port", simulator.port, input])
        let served = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "image 2.0.0 (hash b1697c9210ad081f…) confirmed by the device: slot 0, active confirmed; 9656 bytes uploaded\n"
        )
        #expect(
            result.stderrText.contains("uploading \(input) (MCUboot image 2.0.0+0, 9656 bytes) to \(simulator.port)"))
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        #expect(try bytes(images.file("slot0.bin")).prefix(9656) == ArraySlice(try bytes(input)))
        // Every request fits Zephyr's 384-byte buffer with its length field and CRC: nothing was dropped, and the
        // upload chunks fill it.
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(!transcript.contains("# dropped"))
        #expect(transcript.contains("# reset: "))
        let largest = try hostFrameSizes(simulator).max() ?? 0
        #expect(largest <= 380 && largest > 370, "largest request frame: \(largest) bytes")
    }

    @Test("--smp-mode confirm, --json, from standard input: one result with the device's state; the image lands whole")
    func confirmJSON() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        // imgtool --pad --confirm made a whole 32 KiB slot: the trailer must land at the slot's end.
        let simulator = try SerialSimulator([
            "--protocol", "smp", "--save-images", images.path, "--smp-slot-size", "32768",
        ])
        defer { simulator.directory.remove() }
        let input = "\(mcuboot)/ecdsa-p256-confirm.bin"
        let result = nrfloader(
            ["upload", "--port", simulator.port, "--smp-mode", "confirm", "--json", "-"], input: try bytes(input))
        let served = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        let lines = try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.first?["event"] as? String == "begin")
        #expect(lines.first?["target"] as? String == simulator.port)
        #expect(lines.first?["input"] as? String == "<stdin>")
        #expect(lines.filter { $0["event"] as? String == "result" }.count == 1)
        let final = try #require(lines.last)
        #expect(final["event"] as? String == "result")
        #expect(final["state"] as? String == "confirmed")
        let image = try #require(final["image"] as? [String: Any])
        #expect(image["slot"] as? Int == 0 && image["version"] as? String == "1.3.0.99")
        #expect(image["active"] as? Bool == true && image["confirmed"] as? Bool == true)
        // Zephyr's defaults, since the device answers MCUmgr parameters with rc 8.
        let smp = try #require(final["smp"] as? [String: Any])
        #expect(smp["buf_size"] as? Int == 384 && smp["parameters_reported"] as? Bool == false)
        // The reset shows on the console as the boot banner: a log line, the link's loss, and a new connection.
        let logs = lines.filter { $0["event"] as? String == "log" }.compactMap { $0["message"] as? String }
        #expect(logs.contains { $0.contains("console: *** Booting Zephyr OS") }, "\(logs)")
        // MCUboot rewrites a padded image's trailer; everything before it arrived byte for byte.
        let sent = try bytes(input)
        #expect(try bytes(images.file("slot0.bin")).prefix(sent.count - 48) == sent.prefix(sent.count - 48))
    }

    @Test("a USB CDC device whose port comes back under the next name after the reset is found by serial number")
    func reenumeratingDevice() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let simulator = try SerialSimulator(
            [
                "--protocol", "smp", "--sysfs", folder.file("sys"), "--usb-serial", "C0DE0000CAFE", "--reenumerate",
                "next", "--save-images", folder.file("images"),
            ], in: folder, portName: "dev/ttyACM0")
        let input = "\(mcuboot)/ed25519.bin"
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--port", simulator.port, "--timeout", "5", "--json", input],
            environment: ["NRFLOADER_SYSFS": folder.file("sys"), "NRFLOADER_DEV": folder.file("dev")])
        let served = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        let moved = folder.file("dev/ttyACM1")
        #expect(transcript.contains("# port re-enumerated as \(moved), usb serial number C0DE0000CAFE"))
        let final = try #require(
            try result.stdoutText.split(separator: "\n").last.flatMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            })
        #expect(final["event"] as? String == "result" && final["state"] as? String == "confirmed")
        #expect(try bytes(folder.file("images/slot0.bin")).prefix(9656) == ArraySlice(try bytes(input)))
    }

    @Test("a port that does not exist is a missing input (66), before anything is sent")
    func missingPort() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = directory.file("ttyACM9")
        let result = nrfloader(["upload", "--port", port, "-q", "\(mcuboot)/ed25519.bin"])
        #expect(result.status == 66)
        #expect(result.stderrText == "Error: '\(port)': no such file\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("a device that never answers SMP (a Nordic DFU bootloader) is unavailable (69) after --timeout")
    func deviceNeverAnswers() throws {
        let simulator = try SerialSimulator(["--sd-id", "0x0101"])
        defer { simulator.directory.remove() }
        let started = ContinuousClock.now
        let result = nrfloader(["upload", "--port", simulator.port, "-q", "--timeout", "2", "\(mcuboot)/ed25519.bin"])
        let elapsed = started.duration(to: .now)
        _ = simulator.stop()
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(
            result.stderrText
                == "Error: transport failed: no answer to SMP echo on '\(simulator.port)': is the application built with the MCUmgr UART "
                + "transport (CONFIG_MCUMGR_TRANSPORT_UART), or MCUboot in serial recovery?\n")
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(10), "took \(elapsed)")
    }
}

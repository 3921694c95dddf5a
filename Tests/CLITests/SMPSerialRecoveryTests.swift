import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// `nrfloader upload --port PATH IMAGE.bin` to MCUboot's serial recovery (`simulate-serial --protocol smp
/// --smp-recovery`): recognised from the device's answers, the image straight to the primary slot in requests that
/// fill its 1024-byte buffer, no state write, a reset, and the report of what then runs.
@Suite(.serialized) struct SMPSerialRecoveryTests {
    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("the default mode: the new image runs after the reset, confirmed by the application's own state, exit 0")
    func recoveryRunsNewImage() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-recovery", "--save-images", images.path])
        defer { simulator.directory.remove() }
        let input = "\(mcuboot)/ed25519.bin"
        let result = nrfloader(["upload", "--port", simulator.port, "--json", input])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try jsonLines(result.stdoutText)
        let logs = lines.compactMap { $0["message"] as? String }
        #expect(
            logs.contains { $0.hasPrefix("the device lists no running image: MCUboot's serial recovery") }, "\(logs)")
        #expect(!logs.contains { $0.hasPrefix("device accepted") }, "no state write: \(logs)")
        let final = try #require(lines.last)
        #expect(final["event"] as? String == "result" && final["state"] as? String == "confirmed")
        let image = try #require(final["image"] as? [String: Any])
        #expect(image["active"] as? Bool == true && image["slot"] as? Int == 0)
        let begin = try #require((lines.first?["parts"] as? [[String: Any]])?.first)
        #expect(image["hash"] as? String == begin["hash"] as? String && begin["hash"] != nil)
        let smp = try #require(final["smp"] as? [String: Any])
        #expect(smp["serial_recovery"] as? Bool == true && smp["buf_size"] as? Int == 1020)
        #expect(try bytes(images.file("slot0.bin")).prefix(9656) == ArraySlice(try bytes(input)))
        // Every request fits MCUboot's 1024-byte buffer with its length field and CRC, and the chunks fill it.
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(!transcript.contains("# dropped"))
        let frames = transcript.split(separator: "\n").filter { $0.hasPrefix("> ") }.map { ($0.count - 2) / 2 }
        #expect((frames.max() ?? 0) <= 1020 && (frames.max() ?? 0) > 990, "largest request: \(frames.max() ?? 0)")
    }

    @Test("--smp-mode test is refused before anything is written: recovery cannot test an image (76)")
    func recoveryCannotTest() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-recovery", "--save-images", images.path])
        defer { simulator.directory.remove() }
        let result = nrfloader([
            "upload", "--port", simulator.port, "-q", "--smp-mode", "test", "\(mcuboot)/ed25519.bin",
        ])
        _ = simulator.stop()
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device state: the device is in MCUboot's serial recovery, which writes the primary slot "
                + "directly and cannot test an image: it would run for good after the reset; ask for test-and-confirm, "
                + "confirm or upload-only\n")
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(!transcript.contains("upload started"), "nothing written")
    }

    @Test("--smp-mode upload-only: the image sits in the primary slot, to run for good at the next reset")
    func recoveryUploadOnly() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-recovery", "--save-images", images.path])
        defer { simulator.directory.remove() }
        let input = "\(mcuboot)/ed25519.bin"
        let result = nrfloader(["upload", "--port", simulator.port, "--smp-mode", "upload-only", input])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "image 2.0.0 (hash b1697c9210ad081f…) pending permanent by the device: slot 0, -; 9656 bytes "
                + "uploaded\n")
        #expect(try bytes(images.file("slot0.bin")).prefix(9656) == ArraySlice(try bytes(input)))
    }

    @Test("--smp-bootloader-mode direct-xip: bootloader info tells the mode; upload, reset, and the newer slot runs")
    func directXIPMode() throws {
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-bootloader-mode", "direct-xip"])
        defer { simulator.directory.remove() }
        let result = nrfloader(["upload", "--port", simulator.port, "--json", "\(mcuboot)/ed25519.bin"])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try jsonLines(result.stdoutText)
        let logs = lines.compactMap { $0["message"] as? String }
        #expect(
            logs.contains(
                "bootloader: MCUboot direct-xip, which boots the newest valid slot: upload, reset, no test or confirm"))
        #expect(!logs.contains { $0.hasPrefix("device accepted") }, "no state write: \(logs)")
        let final = try #require(lines.last)
        #expect(final["state"] as? String == "confirmed")
        let image = try #require(final["image"] as? [String: Any])
        #expect(image["slot"] as? Int == 1 && image["active"] as? Bool == true)
        #expect((final["smp"] as? [String: Any])?["bootloader_mode"] as? String == "direct-xip")
    }

    @Test("over USB CDC the reset re-enumerates the port: found again by its serial number, the new image confirmed")
    func recoveryOverReenumeratingUSB() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let simulator = try SerialSimulator(
            [
                "--protocol", "smp", "--smp-recovery", "--sysfs", folder.file("sys"), "--usb-serial", "C0DE0000CAFE",
                "--reenumerate", "next", "--save-images", folder.file("images"),
            ], in: folder, portName: "dev/ttyACM0")
        let input = "\(mcuboot)/ed25519.bin"
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--port", simulator.port, "--timeout", "5", "--json", input],
            environment: ["NRFLOADER_SYSFS": folder.file("sys"), "NRFLOADER_DEV": folder.file("dev")])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(
            transcript.contains("# port re-enumerated as \(folder.file("dev/ttyACM1")), usb serial number C0DE0000CAFE")
        )
        let final = try #require(try jsonLines(result.stdoutText).last)
        #expect(final["event"] as? String == "result" && final["state"] as? String == "confirmed")
        #expect((final["smp"] as? [String: Any])?["serial_recovery"] as? Bool == true)
        #expect(try bytes(folder.file("images/slot0.bin")).prefix(9656) == ArraySlice(try bytes(input)))
    }
}

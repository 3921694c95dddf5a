import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// `nrfloader upload --target sim:smp`, run as a user runs it.
@Suite struct SMPUploadCommandTests {
    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(
        "each image ends in the asked-for state, byte for byte in the device's slot",
        arguments: [
            ("ed25519.bin", [], "confirmed by the device: slot 0, active confirmed", 0),
            ("ecdsa-p256.bin", ["--smp-mode", "test"], "testing by the device: slot 0, active", 0),
            ("hash-only.bin", ["--smp-mode", "upload-only"], "uploaded by the device: slot 1, -", 1),
            (
                "ecdsa-p256-confirm.bin", ["--smp-mode", "confirm"],
                "confirmed by the device: slot 0, active confirmed", 0
            ),
            (
                "ed25519.bin", ["--sim-fault", "disconnect@4000"], "confirmed by the device: slot 0, active confirmed",
                0
            ),
            ("ed25519.bin", ["--sim-fault", "reboot@3000"], "confirmed by the device: slot 0, active confirmed", 0),
            ("ed25519.bin", ["--sim-smp-params", "2475,4"], "confirmed by the device: slot 0, active confirmed", 0),
        ] as [(String, [String], String, Int)])
    func uploads(image: String, options: [String], state: String, slot: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try bytes("\(mcuboot)/\(image)")
        let result = nrfloader(
            [
                "upload", "--target", "sim:smp", "\(mcuboot)/\(image)", "--sim-speed", "0", "-q", "--sim-save-images",
                directory.path,
            ] + options)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdoutText.contains(state), "\(result.stdoutText)")
        let saved = try bytes(directory.path + "/slot\(slot).bin")
        // A padded image's trailer is MCUboot's to rewrite; everything before it arrives byte for byte.
        let compared = image.hasSuffix("-confirm.bin") ? input.count - 48 : input.count
        #expect(Array(saved.prefix(compared)) == Array(input.prefix(compared)))
    }

    @Test("--json prints JSON Lines: begin, phases and progress, and exactly one result with the device's state")
    func json() throws {
        let result = nrfloader([
            "upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-speed", "0", "--json",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.allSatisfy { $0["schema"] as? Int == 1 })
        #expect(lines.first?["event"] as? String == "begin")
        #expect(lines.filter { $0["event"] as? String == "result" }.count == 1)
        let final = try #require(lines.last)
        #expect(final["event"] as? String == "result")
        #expect(final["state"] as? String == "confirmed")
        let image = try #require(final["image"] as? [String: Any])
        #expect(image["hash"] as? String == "b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90")
        #expect(image["active"] as? Bool == true && image["confirmed"] as? Bool == true)
        #expect(lines.contains { $0["event"] as? String == "progress" && $0["bytes_confirmed"] as? Int == 9656 })
    }

    @Test(
        "failures exit with the documented status and one line naming who failed",
        arguments: [
            (
                ["\(mcuboot)/hash-only.bin", "--sim-fault", "respond@01:09"], 76,
                "Error: device refused image upload: rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT: there is no free slot to place the image)\n"
            ),
            (
                ["\(mcuboot)/app.bin"], 65,
                "Error: \(mcuboot)/app.bin: header magic is 0xC9AFB9E7, not MCUboot's 0x96F3B83D (not a signed MCUboot image: sign it with imgtool)\n"
            ),
            (
                ["\(mcuboot)/ed25519.bin", "--verify-key", "\(mcuboot)/ecdsa-p256.pem"], 65,
                "Error: \(mcuboot)/ed25519.bin: no ECDSA P-256 signature TLV to verify\n"
            ),
            (
                // Answers lost from the third on: the reconnection's state read goes unanswered too.
                ["\(mcuboot)/ed25519.bin", "--sim-fault", "drop-notification@3+", "--retries", "1", "--timeout", "2"],
                75, "Error: timed out after 2.0 seconds waiting for the answer to image state read\n"
            ),
        ] as [([String], Int32, String)])
    func failures(arguments: [String], status: Int32, message: String) {
        let result = nrfloader(["upload", "--target", "sim:smp", "--sim-speed", "0", "-q"] + arguments)
        #expect(result.status == status)
        #expect(result.stderrText == message)
        #expect(result.stdout.isEmpty)
    }

    @Test("a fault the SMP device does not simulate is a usage error")
    func unsupportedFault() {
        let result = nrfloader(
            ["upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-fault", "corrupt-packet@3"])
        #expect(result.status == 64)
        #expect(result.stderrText.hasPrefix("Error: --sim-fault 'corrupt-packet@3' is not simulated for sim:smp"))
    }
}

import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// `upload --port` against a console transport with few RX line buffers (`simulate-serial --smp-line-buffers N`), as
/// Zephyr's smp_svr on its shell transport has (2): a request longer than the buffers is dropped without a word.
@Suite(.serialized) struct SMPLineBufferTests {
    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The JSON objects of a `--json` run's stdout.
    private func objects(_ result: ProcessResult) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("2 line buffers: the 5-line first request is dropped, requests shrink to 2 lines, the image lands whole")
    func shrinksToTwoLines() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator([
            "--protocol", "smp", "--smp-line-buffers", "2", "--save-images", images.path,
        ])
        defer { simulator.directory.remove() }
        let input = "\(mcuboot)/ed25519.bin"
        let result = nrfloader([
            "upload", "--port", simulator.port, input, "--smp-mode", "upload-only", "--timeout", "2", "--json",
        ])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try objects(result)
        let logs = lines.filter { $0["event"] as? String == "log" }.compactMap { $0["message"] as? String }
        #expect(
            logs.contains(
                "no answer to image upload at offset 0 (requests of up to 380 bytes, 5 console lines, 1 in flight): "
                    + "the device may have had no free line buffer for the rest of them; sending requests of at most "
                    + "179 bytes (2 lines), one at a time, for the rest of the session"), "\(logs)")
        #expect(
            logs.contains(
                "no answer within 2.0 seconds waiting for the answer to image upload at offset 0; reconnecting to send "
                    + "it again (1 of 3)"), "\(logs)")
        let final = try #require(lines.last)
        #expect(final["event"] as? String == "result" && final["state"] as? String == "uploaded")
        let smp = try #require(final["smp"] as? [String: Any])
        #expect(smp["requests_in_flight"] as? Int == 1)
        #expect(try bytes(images.file("slot1.bin")).prefix(9656) == ArraySlice(try bytes(input)))
        // The device dropped the 3 lines of the 380-byte request beyond its 2 buffers, once; after that every request
        // took at most 2 lines.
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8).split(separator: "\n")
        let dropped = transcript.filter { $0.hasPrefix("# dropped:") }
        #expect(
            dropped == [123, 123, 31].map { "# dropped: SMP line of \($0) bytes, no free line buffer (2 held)" },
            "\(dropped)")
        let requests = transcript.filter { $0.hasPrefix("> ") }.map { ($0.count - 2) / 2 }
        #expect(requests.allSatisfy { $0 <= 179 }, "\(requests)")
    }

    @Test("1 line buffer: even 2-line requests are dropped; after 4 sends the upload exits 75 naming what was lost")
    func boundedFailure() throws {
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-line-buffers", "1"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let started = ContinuousClock.now
        let result = nrfloader([
            "upload", "--port", simulator.port, "\(mcuboot)/ed25519.bin", "--smp-mode", "upload-only", "--timeout",
            "1", "--json",
        ])
        let elapsed = started.duration(to: .now)
        #expect(result.status == 75, "\(result.stderrText)")
        let message =
            "no answer to image upload at offset 0 after 4 sends, 1.0 seconds each: the device dropped requests of up "
            + "to 179 bytes (2 console lines) or their answers; check that the port is the device's MCUmgr console "
            + "(CONFIG_MCUMGR_TRANSPORT_UART or CONFIG_MCUMGR_TRANSPORT_SHELL), or give a longer --timeout"
        #expect(result.stderrText.hasSuffix("Error: \(message)\n"), "\(result.stderrText)")
        let final = try #require(try objects(result).last)
        #expect(final["event"] as? String == "error" && final["exit_status"] as? Int == 75)
        #expect(final["message"] as? String == message)
        // --timeout bounds each of the 4 waits.
        #expect(elapsed < .seconds(30), "\(elapsed)")
    }

    @Test("--smp-line-buffers is checked")
    func validation() {
        let result = nrfloader(["simulate-serial", "--protocol", "smp", "--port", "/tmp/x", "--smp-line-buffers", "0"])
        #expect(result.status == 64)
        #expect(result.stderrText.contains("--smp-line-buffers must be 1 to 64"), "\(result.stderrText)")
    }
}

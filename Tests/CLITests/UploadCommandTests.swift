import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
private let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path

/// Decodes every line of `--json` output, failing on any line that is not a JSON object with a schema.
private func jsonLines(_ result: ProcessResult) throws -> [[String: Any]] {
    try result.stdoutText.split(separator: "\n").map { line in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["schema"] as? Int == 1)
        return object
    }
}

@Suite struct UploadCommandTests {
    @Test(
        "every kind of input uploads to its simulated target and reports what the device confirmed",
        arguments: [
            (
                ["--target", "sim", "selftest-pca10040"],
                "part 1/1: application confirmed by the device: 131804 bytes, CRC-32 0x579C43BC\n"
            ),
            (
                ["--target", "sim:legacy", "blinky-pca10040"],
                "part 1/1: application confirmed by the device: 604 bytes (legacy DFU reports no CRC)\n"
            ),
            (
                ["--target", "sim:legacy-v1", "blinky-pca10028"],
                "part 1/1: application confirmed by the device: 616 bytes (legacy DFU reports no CRC)\n"
            ),
            (
                ["--target", "sim:buttonless", "blinky-pca10056"],
                "part 1/1: application confirmed by the device: 640 bytes, CRC-32 0xC17B64CF\n"
            ),
            (
                ["--target", "sim", "\(firmware)/blinky-pca10040.hex", "--sd-req", "0x0101"],
                "part 1/1: application confirmed by the device: 604 bytes, CRC-32 0xA4B30F4B\n"
            ),
            (
                ["--target", "sim", "\(firmware)/blinky-pca10040.bin", "--sd-req", "0x0101", "--hw-version", "52"],
                "part 1/1: application confirmed by the device: 604 bytes, CRC-32 0xA4B30F4B\n"
            ),
            (
                [
                    "--target", "sim", "\(packages)/nrfutil617-selftest-signed.zip", "--verify-key",
                    "\(packages)/nrfutil-test-key.pub.pem",
                ], "part 1/1: application confirmed by the device: 131804 bytes, CRC-32 0x579C43BC\n"
            ),
            (
                ["--target", "sim:legacy", "\(packages)/adafruit-blinky-dfu05.zip"],
                "part 1/1: application confirmed by the device: 604 bytes (legacy DFU reports no CRC)\n"
            ),
        ] as [([String], String)])
    func inputs(arguments: [String], confirmation: String) {
        let result = nrfloader(["upload", "--sim-speed", "0", "-q"] + arguments)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == confirmation)
        #expect(result.stderr.isEmpty)
    }

    @Test("'-' reads the image from standard input")
    func standardInput() throws {
        let hex = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(firmware)/blinky-pca10040.hex")))
        let result = nrfloader(
            ["upload", "--target", "sim", "-", "--sd-req", "0x0101", "--sim-speed", "0", "-q"], input: hex)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "part 1/1: application confirmed by the device: 604 bytes, CRC-32 0xA4B30F4B\n")
    }

    @Test("--json prints JSON Lines only: begin, phases, progress, and exactly one result")
    func json() throws {
        let result = nrfloader(["upload", "--target", "sim", "selftest-pca10040", "--sim-speed", "0", "--json"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let events = try jsonLines(result)
        #expect(events.first?["event"] as? String == "begin")
        #expect(events.filter { $0["event"] as? String == "result" }.count == 1)
        #expect(events.last?["event"] as? String == "result")
        let phases = events.filter { $0["event"] as? String == "phase" }.compactMap { $0["phase"] as? String }
        #expect(phases == ["connecting", "sending init packet", "sending firmware", "validating"])
        let parts = try #require(events.last?["parts"] as? [[String: Any]])
        #expect(parts.count == 1)
        #expect(parts[0]["bytes_confirmed"] as? Int == 131_804)
        #expect(parts[0]["crc32"] as? String == "0x579C43BC")
    }

    @Test("without a terminal, progress is one line per phase on stderr")
    func lines() {
        let result = nrfloader(["upload", "--target", "sim", "blinky-pca10040", "--sim-speed", "0"])
        #expect(result.status == 0)
        #expect(
            result.stderrText == """
                uploading blinky-pca10040 to sim (C0:DE:00:00:00:02): application 604 bytes
                part 1/1: connecting (604 bytes)
                part 1/1: sending init packet (604 bytes)
                part 1/1: sending firmware (604 bytes)
                part 1/1: validating (604 bytes)

                """)
    }

    @Test(
        "a link lost mid-object, or a reboot, is resumed to the same confirmed image",
        arguments: [
            "disconnect@6000", "reboot@9000", "mtu@23",
        ])
    func resumes(fault: String) {
        let result = nrfloader([
            "upload", "--target", "sim", "selftest-pca10040", "--sim-speed", "0", "-q", "--sim-fault", fault,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "part 1/1: application confirmed by the device: 131804 bytes, CRC-32 0x579C43BC\n")
    }

    @Test(
        "device faults end with the documented error and exit status",
        arguments: [
            (
                "respond@04:0B:05", Int32(76),
                "Error: target rejected execute (0x04) with extendedError (0x0B): firmwareVersionFailure (0x05)\n"
            ),
            (
                // The simulated link's ATT wait is --timeout, as BlueZ's is (issue 23): 2 s, not ATT's 30.
                "stall@6", 75,
                "Error: transport failed: write to secureControlPoint: no ATT response within 2.0 seconds\n"
            ),
            (
                // Every notification from the third on is lost: each reconnect times out again until none is left.
                "drop-notification@3+", 75,
                "Error: timed out after 2.0 seconds waiting for the response to selectObject (0x06)\n"
            ),
        ] as [(String, Int32, String)])
    func faults(fault: String, status: Int32, message: String) throws {
        let result = nrfloader([
            "upload", "--target", "sim", "selftest-pca10040", "--sim-speed", "0", "--timeout", "2", "--sim-fault",
            fault,
            "--json",
        ])
        #expect(result.status == status)
        #expect(result.stderrText == message)
        let events = try jsonLines(result)
        let last = try #require(events.last)
        #expect(last["event"] as? String == "error")
        #expect(last["exit_status"] as? Int == Int(status))
        #expect(events.filter { $0["event"] as? String == "result" }.isEmpty)
    }

    @Test(
        "input problems are refused before anything is sent",
        arguments: [
            (
                ["--target", "sim", "\(firmware)/blinky-pca10040.hex"], Int32(64),
                "Error: \(firmware)/blinky-pca10040.hex: a Secure DFU init packet names the SoftDevices the image runs on (sd_req); give --sd-req ID[,ID…]\n"
            ),
            (
                [
                    "--target", "sim", "\(packages)/nrfutil617-blinky-unsigned.zip", "--verify-key",
                    "\(packages)/nrfutil-test-key.pub.pem",
                ], 65,
                "Error: \(packages)/nrfutil617-blinky-unsigned.zip/blinky-pca10040.dat: init packet signature is missing (the package is unsigned)\n"
            ),
            (
                ["--target", "sim", "nothing-like-this"], 66,
                "Error: 'nothing-like-this' is neither a file nor a catalog id"
            ),
            (["--target", "sim:wireless", "blinky-pca10040"], 64, "Error: unknown simulated target 'sim:wireless'"),
            (
                ["--target", "AA:BB:CC:DD:EE", "blinky-pca10040"], 64,
                "Error: --target: 'AA:BB:CC:DD:EE' is not a bluetooth address"
            ),
            (
                ["--target", "AA:BB:CC:DD:EE:FF", "--name", "DfuTarg", "blinky-pca10040"], 64,
                "Error: --target and --name exclude each other\n"
            ),
            (["blinky-pca10040"], 64, "Error: give the device with --target ADDRESS, --name NAME or --port PATH\n"),
            (
                ["--target", "sim", "blinky-pca10040", "--sim-fault", "explode@1"], 64,
                "Error: --sim-fault: fault 'explode@1': unknown fault 'explode'\n"
            ),
        ] as [([String], Int32, String)])
    func refusals(arguments: [String], status: Int32, message: String) {
        let result = nrfloader(["upload", "--sim-speed", "0"] + arguments)
        #expect(result.status == status)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix(message))
    }

    @Test("Ctrl-C aborts the update on the device and exits 130")
    func interrupt() throws {
        let child = ProcessRunner().start(
            TestPaths.nrfloader, ["upload", "--target", "sim", "selftest-pca10040", "--sim-speed", "1", "--json"])
        usleep(1_200_000)
        child.send(SIGINT)
        let result = child.wait()
        #expect(result.status == 130)
        #expect(result.stderrText == "Error: cancelled; the target was told to abort\n")
        let events = try jsonLines(result)
        #expect(events.last?["event"] as? String == "error")
        #expect(events.last?["exit_status"] as? Int == 130)
    }
}

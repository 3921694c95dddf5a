import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path

/// Decodes every line of `--json` output, failing on any line that is not a JSON object with a schema.
private func jsonObjects(_ result: ProcessResult) throws -> [[String: Any]] {
    try result.stdoutText.split(separator: "\n").map { line in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["schema"] as? Int == 1)
        return object
    }
}

/// `upload` to several simulated devices in one run (issue 14).
@Suite struct FleetUploadCommandTests {
    @Test("three simulated devices: two confirm the image byte for byte, the faulty one fails with 76")
    func severalDevices() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(firmware)/blinky-pca10040.bin")))
        let result = nrfloader([
            "upload", "--target", "sim", "--target", "sim", "--target", "sim", "blinky-pca10040", "--sim-speed", "0",
            "--sim-fault-on", "2=respond@04:0B:05", "--sim-save-images", directory.path, "--json",
        ])
        #expect(result.status == 76, "\(result.stderrText)")
        #expect(result.stderrText == "Error: 1 of 3 devices were not updated (see the summary)\n")
        let objects = try jsonObjects(result)
        let devices = ["C0:DE:00:00:01:01", "C0:DE:00:00:02:01", "C0:DE:00:00:03:01"]
        // Every object but the summary names its device.
        for object in objects.dropLast() {
            #expect(devices.contains(object["device"] as? String ?? ""), "\(object)")
        }
        let results = objects.filter { $0["event"] as? String == "result" }.compactMap { $0["device"] as? String }
        #expect(results.sorted() == [devices[0], devices[2]])
        let errors = objects.filter { $0["event"] as? String == "error" }
        #expect(errors.count == 1)
        #expect(errors.first?["device"] as? String == devices[1])
        #expect(errors.first?["exit_status"] as? Int == 76)

        let summary = try #require(objects.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["exit_status"] as? Int == 76)
        #expect(summary["completed"] as? Int == 2)
        #expect(summary["failed"] as? Int == 1)
        let rows = try #require(summary["devices"] as? [[String: Any]])
        #expect(rows.map { $0["device"] as? String } == devices)
        #expect(rows.map { $0["status"] as? String } == ["completed", "failed", "completed"])
        #expect(rows.map { $0["exit_status"] as? Int } == [0, 76, 0])
        #expect(rows.map { $0["bytes_confirmed"] as? Int } == [604, 0, 604])
        #expect(rows[0]["message"] is NSNull)
        #expect(
            rows[1]["message"] as? String
                == "target rejected execute (0x04) with extendedError (0x0B): firmwareVersionFailure (0x05)")

        // What each device activated, byte for byte; the failed one activated nothing.
        #expect(try directory.contents() == ["C0-DE-00-00-01-01", "C0-DE-00-00-03-01"])
        for name in ["C0-DE-00-00-01-01", "C0-DE-00-00-03-01"] {
            #expect(try directory.read("\(name)/application.bin") == image)
        }
    }

    @Test("without a terminal: lines prefixed with the device on stderr, the summary table on stdout")
    func lines() {
        let result = nrfloader([
            "upload", "--target", "sim:legacy", "--target", "sim:legacy", "blinky-pca10040", "--sim-speed", "0",
            "--parallel", "1",
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        let stderr = result.stderrText.split(separator: "\n")
        #expect(
            stderr.first == "uploading blinky-pca10040 to 2 devices, 1 at a time per adapter: application 604 bytes")
        for line in stderr.dropFirst().dropLast() {
            #expect(line.hasPrefix("C0:DE:00:00:01:01: ") || line.hasPrefix("C0:DE:00:00:02:01: "), "\(line)")
        }
        // --parallel 1: the second device starts only after the first one ended.
        let first = stderr.firstIndex { $0.hasPrefix("C0:DE:00:00:01:01: confirmed by the device") }
        let second = stderr.firstIndex { $0 == "C0:DE:00:00:02:01: started" }
        #expect(first != nil && second != nil && first! < second!)
        #expect(stderr.last?.hasPrefix("2 of 2 devices updated in ") == true)
        let table = result.stdoutText.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            table == [
                "DEVICE NAME ADAPTER STATUS EXIT CONFIRMED MESSAGE",
                "C0:DE:00:00:01:01 - sim completed 0 604 -",
                "C0:DE:00:00:02:01 - sim completed 0 604 -",
            ])
    }

    @Test("the exit status is the most serious among the failed devices: 76 before 75")
    func severity() throws {
        let result = nrfloader([
            "upload", "--target", "sim", "--target", "sim", "--target", "sim", "selftest-pca10040", "--sim-speed",
            "0", "--timeout", "2", "--sim-fault-on", "1=drop-notification~1", "--sim-fault-on", "3=respond@04:0B:05",
            "--json",
        ])
        #expect(result.status == 76)
        let summary = try #require(try jsonObjects(result).last)
        let rows = try #require(summary["devices"] as? [[String: Any]])
        #expect(rows.map { $0["exit_status"] as? Int } == [75, 0, 76])
        #expect(rows[1]["bytes_confirmed"] as? Int == 131804)
    }

    @Test(
        "mistakes in the device list are refused before anything is sent",
        arguments: [
            (
                ["--target", "sim", "--target", "AA:BB:CC:DD:EE:FF"],
                "Error: simulated targets (sim...) cannot be mixed"
            ),
            (["--target", "sim", "--target", "sim:bogus"], "Error: unknown simulated target 'sim:bogus'"),
            (["--name", "Dfu.*", "--parallel", "2"], "Error: --name 'Dfu.*' selects exactly one device; add --all"),
            (["--all"], "Error: --all needs --name REGEX"),
            (["--name", "(", "--all"], "Error: --name '(' is not a valid regular expression"),
            (["--target", "sim", "--target", "sim", "--parallel", "0"], "Error: --parallel must be at least 1"),
            (
                ["--target", "sim", "--target", "sim", "--sim-fault-on", "3=disconnect@100"],
                "Error: --sim-fault-on 3=disconnect@100: there are only 2 simulated targets"
            ),
            (
                ["--target", "AA:BB:CC:DD:EE:FF", "--target", "AA:BB:CC:DD:EE:FF"],
                "Error: --target AA:BB:CC:DD:EE:FF is given twice"
            ),
        ] as [([String], String)])
    func refusals(arguments: [String], message: String) {
        let result = nrfloader(["upload", "blinky-pca10040"] + arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix(message), "\(result.stderrText)")
    }

    @Test("--targets-from names the line that is not an address")
    func targetsFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = try directory.write(
            "targets.txt",
            Array(
                "# rack 1\nAA:BB:CC:DD:EE:01\n{\"address\":\"AA:BB:CC:DD:EE:02\",\"name\":\"x\"}\nnot-an-address\n".utf8
            ))
        let result = nrfloader(["upload", "--targets-from", list, "blinky-pca10040"])
        #expect(result.status == 64)
        #expect(result.stderrText.hasPrefix("Error: \(list):4: 'not-an-address' is not a bluetooth address"))
        let fromStdin = nrfloader(
            ["upload", "--targets-from", "-", "blinky-pca10040"], input: Array("{\"name\":\"x\"}\n".utf8))
        #expect(fromStdin.status == 64)
        #expect(fromStdin.stderrText == "Error: <stdin>:1: not a JSON object with an \"address\" string\n")
    }

    @Test("Ctrl-C stops every device: running ones are told to abort, waiting ones never start, exit 130")
    func interrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("out.jsonl")
        // stdout goes to a file (the shell execs nrfloader, so the pid is nrfloader's): the test waits until both
        // running devices report data progress, then interrupts.
        let child = ProcessRunner().start(
            "/bin/sh",
            [
                "-c", "exec \"$0\" \"$@\" > \"$OUT\"", TestPaths.nrfloader, "upload", "--target", "sim", "--target",
                "sim", "--target", "sim", "selftest-pca10040", "--sim-speed", "1", "--parallel", "2", "--json",
            ], environment: ["OUT": output])
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        var sending: Set<String> = []
        while sending.count < 2 && ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.contains(#""phase":"sending firmware""#) {
                if let range = line.range(of: #""device":"[^"]*""#, options: .regularExpression) {
                    sending.insert(String(line[range]))
                }
            }
            usleep(20_000)
        }
        #expect(sending.count == 2)
        child.send(SIGINT)
        var result = child.wait()
        result.stdout = try directory.read("out.jsonl")
        #expect(result.status == 130)
        let summary = try #require(try jsonObjects(result).last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["exit_status"] as? Int == 130)
        let rows = try #require(summary["devices"] as? [[String: Any]])
        #expect(rows.map { $0["status"] as? String } == ["failed", "failed", "not_started"])
        #expect(
            rows.map { $0["message"] as? String } == [
                "cancelled; the target was told to abort", "cancelled; the target was told to abort",
                "not started: the run was interrupted",
            ])
    }
}

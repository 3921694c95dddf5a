import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let corpus = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fuzz/Corpus/package").path
private let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path
private let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// A real way of ending with one exit status, run through the built binary.
struct ExitCase: Sendable, CustomTestStringConvertible {
    var status: Int32
    var arguments: [String]
    var environment: [String: String] = [:]
    var testDescription: String { "\(status): nrfloader \(arguments.joined(separator: " "))" }
}

/// The `--json` contract (issue 16, point 4): stdout ends with exactly one final object, `result` on success or
/// `error` carrying the process's exit status and the message of the stderr line, for every exit status in the
/// table `--help` prints, each produced by a real way of getting it.
@Suite struct JSONContractTests {
    static let cases: [ExitCase] = [
        ExitCase(status: 0, arguments: ["list", "--json"]),
        ExitCase(status: 0, arguments: ["info", "\(firmware)/blinky-pca10040.hex", "--json"]),
        ExitCase(status: 0, arguments: ["upload", "--target", "sim", "blinky-pca10040", "--sim-speed", "0", "--json"]),
        ExitCase(status: 0, arguments: ["info", "\(mcuboot)/ecdsa-p256.bin", "--json"]),
        ExitCase(
            status: 0,
            arguments: ["upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-speed", "0", "--json"]),
        ExitCase(
            status: 65,
            arguments: [
                "info", "\(mcuboot)/ecdsa-p256.bin", "--verify-key", "\(mcuboot)/ecdsa-p256-other.pem", "--json",
            ]),
        ExitCase(status: 65, arguments: ["upload", "--target", "sim:smp", "\(mcuboot)/app.bin", "--json"]),
        ExitCase(
            status: 75,
            arguments: [
                "upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-speed", "0", "--sim-fault",
                "drop-notification@3+", "--retries", "1", "--timeout", "1", "--json",
            ]),
        ExitCase(
            status: 76,
            arguments: [
                "upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-speed", "0", "--sim-fault",
                "respond@00:21", "--json",
            ]),
        ExitCase(status: 64, arguments: ["list", "--json", "--bogus"]),
        ExitCase(status: 64, arguments: ["upload", "--json", "--target", "sim"]),
        ExitCase(status: 64, arguments: ["upload", "--json", "--target", "sim:nonsense", "blinky-pca10040"]),
        ExitCase(status: 65, arguments: ["info", "\(corpus)/issue16-case1.zip", "--json"]),
        ExitCase(status: 65, arguments: ["upload", "--target", "sim", "\(corpus)/issue16-case2.zip", "--json"]),
        // The description is built before the signature check fails: only the error object may be printed.
        ExitCase(
            status: 65,
            arguments: [
                "info", "\(packages)/nrfutil617-blinky-signed.zip", "--verify-key",
                TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/keys/test-public-key.pem").path, "--json",
            ]),
        ExitCase(status: 66, arguments: ["info", "/nonexistent/app.zip", "--json"]),
        ExitCase(status: 66, arguments: ["upload", "--target", "sim", "no-such-id", "--json"]),
        ExitCase(
            status: 69, arguments: ["scan", "--timeout", "1", "--json"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]),
        ExitCase(
            status: 69, arguments: ["upload", "--target", "C0:DE:00:00:00:09", "blinky-pca10040", "--json"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]),
        ExitCase(
            status: 73, arguments: ["convert", "\(firmware)/blinky-pca10040.hex", "-o", "/nonexistent/x.bin", "--json"]),
        // Reading /proc/self/mem from offset 0 fails with EIO: an input that opens and then cannot be read.
        ExitCase(status: 74, arguments: ["info", "/proc/self/mem", "--json"]),
        ExitCase(
            status: 75,
            arguments: [
                "upload", "--target", "sim", "blinky-pca10040", "--sim-speed", "0", "--timeout", "1", "--sim-fault",
                "stall@3", "--json",
            ]),
        ExitCase(
            status: 76,
            arguments: [
                "upload", "--target", "sim", "blinky-pca10040", "--sim-speed", "0", "--sim-fault", "respond@01:04",
                "--json",
            ]),
    ]

    /// Statuses of the table no input can produce, with the reason; the walk below requires every other one.
    static let unreachable: [Int32: String] = [
        // ExitStatus(for:) maps every error enum a command can throw; 70 is the fallback for a type it does not
        // know, which is a bug by definition.
        70: "internal error: only an error type the CLI does not map reaches it"
    ]

    /// The statuses `nrfloader --help` lists.
    static func tableStatuses() -> Set<Int32> {
        let help = nrfloader(["--help"]).stdoutText
        guard let table = help.components(separatedBy: "EXIT STATUS:\n").last else { return [] }
        return Set(table.split(separator: "\n").compactMap { Int32($0.split(separator: " ").first ?? "") })
    }

    @Test("every status of the exit status table is produced by a case here or explained as unreachable")
    func coversTable() {
        let table = Self.tableStatuses()
        #expect(table.count >= 11)
        #expect(Set(Self.cases.map(\.status)).union(Self.unreachable.keys).union([130]) == table)
    }

    @Test("stdout ends with exactly one final object that agrees with the exit status and stderr", arguments: cases)
    func finalObject(_ exitCase: ExitCase) throws {
        let result = ProcessRunner().run(TestPaths.nrfloader, exitCase.arguments, environment: exitCase.environment)
        #expect(result.status == exitCase.status, "\(result.stderrText)")
        try Self.checkVerdict(status: result.status, stdout: result.stdoutText, stderr: result.stderrText)
    }

    @Test(
        "an interrupted upload ends with the error object of status 130",
        arguments: [
            ["upload", "--target", "sim", "selftest-pca10040", "--sim-speed", "1", "--json"],
            ["upload", "--target", "sim:smp", "\(mcuboot)/ed25519.bin", "--sim-speed", "0.1", "--json"],
        ])
    func interrupted(_ arguments: [String]) throws {
        let child = LineReader(arguments)
        // The begin event is printed after the interrupt handler is installed: waiting for it is the condition.
        let begin = child.waitForLine(within: .seconds(60)) { $0.contains(#""event":"begin""#) }
        #expect(begin != nil)
        child.send(SIGINT)
        let result = child.finish()
        #expect(result.status == 130)
        try Self.checkVerdict(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    @Test("a command interrupted before it can clean up in steps ends with the error object of status 130")
    func interruptedConvert() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = ProcessRunner().start(
            TestPaths.nrfloader, ["convert", "-", "-o", directory.file("app.bin"), "--json"])
        child.write(Array(":020000040002F8\n".utf8))
        // The temporary output exists once the handler is installed and the input is being read: the condition.
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = false
        while !seen && ContinuousClock.now < deadline {
            seen = try directory.contents().contains { $0.hasPrefix(".app.bin.") }
            if !seen { usleep(10_000) }
        }
        #expect(seen)
        child.send(SIGINT)
        let result = child.wait()
        #expect(result.status == 130)
        #expect(try directory.contents().isEmpty)
        try Self.checkVerdict(status: result.status, stdout: result.stdoutText, stderr: result.stderrText)
    }

    /// Checks the last stdout line is the one verdict, and that an error verdict matches status and stderr.
    static func checkVerdict(status: Int32, stdout: String, stderr: String) throws {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "stdout must end with a newline")
        let objects = try lines.dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let verdicts = objects.filter { ["result", "error"].contains($0["event"] as? String) }
        #expect(verdicts.count == 1, "\(stdout)")
        let last = try #require(objects.last)
        #expect(last["schema"] as? Int == 1)
        if status == 0 {
            #expect(last["event"] as? String == "result")
            #expect(!stderr.contains("Error:"))
        } else {
            #expect(last["event"] as? String == "error", "stderr: \(stderr)")
            #expect(last["exit_status"] as? Int == Int(status))
            let message = try #require(last["message"] as? String)
            let firstLine = stderr.split(separator: "\n").first { $0.hasPrefix("Error: ") }
            #expect(firstLine.map(String.init) == "Error: " + message, "\(stderr)")
        }
    }
}

/// A running `nrfloader` whose stdout is read line by line, so a test can act when a line appears.
private final class LineReader: @unchecked Sendable {
    // Unchecked: used from one test thread only; the pid and descriptors are written once in `init`.
    let pid: pid_t
    private let stdoutReader: Int32
    private let stderrReader: Int32
    private var stdout: [UInt8] = []

    init(_ arguments: [String]) {
        var stdoutPipe: [Int32] = [0, 0]
        var stderrPipe: [Int32] = [0, 0]
        precondition(pipe(&stdoutPipe) == 0 && pipe(&stderrPipe) == 0, "pipe failed")
        for descriptor in stdoutPipe + stderrPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        let (pid, status) = ProcessRunner.spawn(TestPaths.nrfloader, arguments, environment: [:], actions: &actions)
        precondition(status == 0, "cannot start nrfloader")
        close(stdoutPipe[1])
        close(stderrPipe[1])
        self.pid = pid
        stdoutReader = stdoutPipe[0]
        stderrReader = stderrPipe[0]
    }

    /// Reads stdout until a complete line satisfies `predicate` or `limit` passes (a watchdog, not a wait).
    func waitForLine(within limit: Duration, where predicate: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n").map(String.init)
            if let line = lines.first(where: predicate) { return line }
            var poller = pollfd(fd: stdoutReader, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return nil }
            guard poller.revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(stdoutReader, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            stdout += buffer[0..<count]
        }
        return nil
    }

    func send(_ signal: Int32) { kill(pid, signal) }

    /// Reads both streams to the end and reaps the process: its exit status (128 + signal if killed) and output.
    func finish() -> (status: Int32, stdout: String, stderr: String) {
        func drain(_ descriptor: Int32) -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            close(descriptor)
            return bytes
        }
        stdout += drain(stdoutReader)
        let stderr = drain(stderrReader)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

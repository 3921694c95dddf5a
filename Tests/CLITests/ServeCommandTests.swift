import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader serve` as a program drives it over HTTP: the events of a job are `upload --json`'s lines, a bad file
/// gets the command's own message, and SIGTERM aborts running jobs and exits 130.
@Suite(.serialized)
struct ServeCommandTests {
    /// The lines that do not depend on timing: no thinned progress, no result (it carries the elapsed time).
    private static func steady(_ lines: [Substring]) -> [Substring] {
        lines.filter { !$0.contains("\"event\":\"progress\"") && !$0.contains("\"event\":\"result\"") }
    }

    @Test("a job's events are upload --json's lines, and its result maps to HTTP 200")
    func eventsAreUploadLines() async throws {
        let server = try await ServeProcess.start(["--no-scan", "--sim-speed", "0"])
        let started = try await server.post(
            "/api/jobs", body: Data(#"{"firmware":"selftest-pca10040","devices":["sim-1"]}"#.utf8),
            type: "application/json")
        #expect(started.status == 202)
        let result = try await server.get("/api/jobs/1/result")
        #expect(result.status == 200)
        let stream = try await server.get("/api/jobs/1/events")
        let events = stream.text.split(separator: "\n\n").map { $0.split(separator: "\n")[1].dropFirst(6) }
        let upload = nrfloader(["upload", "selftest-pca10040", "--target", "sim", "--sim-speed", "0", "--json"])
        #expect(upload.status == 0)
        let lines = upload.stdoutText.split(separator: "\n")
        #expect(Self.steady(events) == Self.steady(lines))
        #expect(events.count > 4)
        #expect(result.text.contains("\"event\":\"result\""))
        #expect(lines.last?.contains("\"event\":\"result\"") == true)
        let stopped = server.stop()
        #expect(stopped.status == 130)
        #expect(stopped.stderrText.hasSuffix("Error: stopped by a signal (0 running jobs aborted)\n"))
    }

    @Test("a bad file gets upload's message and exit status, at the mapped HTTP status")
    func badFile() async throws {
        let server = try await ServeProcess.start(["--no-scan", "--sim-speed", "0"])
        let folder = try TemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let corrupt = Data("PK\u{3}\u{4}neither zip nor firmware".utf8)
        try folder.write("corrupt.zip", Array(corrupt))
        let refused = try await server.post(
            "/api/firmware?name=corrupt.zip", body: corrupt, type: "application/octet-stream")
        let upload = ProcessRunner().run(
            "/bin/sh",
            ["-c", "cd '\(folder.path)' && exec '\(TestPaths.nrfloader)' upload corrupt.zip --target sim --json"])
        #expect(upload.status == 65)
        #expect(refused.status == 422)
        #expect(refused.text == upload.stdoutText)
        #expect(try await server.get("/api/catalog").status == 200)
        #expect(server.stop().status == 130)
    }

    @Test("SIGTERM aborts the running jobs cleanly and exits 130")
    func sigterm() async throws {
        // At a fifth of real time each job takes about 25 s, so both are still running when the signal comes, however
        // long a loaded machine takes to see them start.
        let server = try await ServeProcess.start(["--no-scan", "--sim-speed", "0.2"])
        let started = try await server.post(
            "/api/jobs", body: Data(#"{"firmware":"selftest-pca10040","devices":["sim-1","sim-2"]}"#.utf8),
            type: "application/json")
        #expect(started.status == 202)
        var sending = 0
        for _ in 0..<400 {
            sending = 0
            for job in 1...2 {
                let state = try await server.get("/api/jobs/\(job)").text
                if state.contains(#""phase":"sending firmware""#) { sending += 1 }
            }
            if sending == 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(sending == 2, "both jobs sending firmware before the signal")
        let stopped = server.stop()
        #expect(stopped.status == 130)
        #expect(stopped.stderrText.hasSuffix("Error: stopped by a signal (2 running jobs aborted)\n"))
        let last = stopped.stdoutText.split(separator: "\n").last.map(String.init)
        #expect(
            last
                == #"{"event":"error","exit_status":130,"message":"stopped by a signal (2 running jobs aborted)","schema":1}"#
        )
    }

    @Test("off loopback, serve refuses to start without a token")
    func offLoopbackNeedsAToken() {
        let result = nrfloader(["serve", "--listen", "0.0.0.0:0", "--no-scan", "--json"])
        #expect(result.status == 64)
        #expect(
            result.stderrText
                == "Error: 0.0.0.0 is not a loopback address: flashing is privileged, so serving it needs --token-file FILE\n"
        )
        #expect(
            result.stdoutText
                == #"{"event":"error","exit_status":64,"message":"0.0.0.0 is not a loopback address: flashing is privileged, so serving it needs --token-file FILE","schema":1}"#
                + "\n")
    }
}

import Foundation
import TestSupport
import Testing

/// `fs upload` and `fs download` as a user runs them, against `sim:smp`, `simulate-serial --protocol smp` and
/// `simulate-udp`: the bytes round-trip, progress goes to stderr (or as `--json` events), an interrupted upload
/// resumes after the part the device holds, and a lost answer is asked again.
@Suite(.serialized) struct SMPFileTransferTests {
    /// 100 KiB that are not all alike: byte `i` is `(i * 7 + i / 251) & 0xFF`.
    private static let file: [UInt8] = (0..<102_400).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }

    private func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "upload then download 100 KiB: the same bytes, progress by tenths on stderr",
        arguments: SMPGroupVerbsTests.Transport.allCases)
    func roundTrip(transport: SMPGroupVerbsTests.Transport) throws {
        let device = try SMPGroupVerbsTests.Device(transport)
        defer { device.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let local = try write(Self.file, "file.bin", in: directory)
        let back = directory.file("back.bin")
        if transport == .simulated {
            // sim:smp is a fresh device each run: the upload alone, then the file the device starts with.
            let result = nrfloader(["fs", "upload", local, "/lfs/file.bin"] + device.options)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText == "/lfs/file.bin: 102400 bytes written\n")
            let download = nrfloader(["fs", "download", "/lfs/hello.txt", back] + device.options)
            #expect(download.stdoutText == "/lfs/hello.txt: 37 bytes read into \(back)\n", "\(download.stderrText)")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: back)) == Data("Hello from a simulated Zephyr device\n".utf8))
            return
        }
        var result = nrfloader(["fs", "upload", local, "/lfs/file.bin"] + device.options)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "/lfs/file.bin: 102400 bytes written\n")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 11 && lines.last == "fs upload: 102400/102400 bytes", "\(result.stderrText)")
        #expect(lines.allSatisfy { $0.hasPrefix("fs upload: ") && $0.hasSuffix("/102400 bytes") })

        result = nrfloader(["fs", "download", "/lfs/file.bin", back] + device.options)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "/lfs/file.bin: 102400 bytes read into \(back)\n")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: back))) == Self.file)

        // The device's own SHA-256 of what it holds is the file's.
        result = nrfloader(["fs", "hash", "/lfs/file.bin", "--type", "sha256"] + device.options)
        let digest = sha256Hex(Self.file)
        #expect(result.stdoutText == "sha256 \(digest) (102400 bytes of /lfs/file.bin)\n")

        // The whole file again: nothing to send.
        result = nrfloader(["fs", "upload", local, "/lfs/file.bin", "-q"] + device.options)
        #expect(result.stdoutText == "/lfs/file.bin: the device already holds these 102400 bytes\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("an upload cut short resumes after the part the device holds; a different part is written anew")
    func resume() throws {
        for transport in [SMPGroupVerbsTests.Transport.serial, .udp] {
            let device = try SMPGroupVerbsTests.Device(transport)
            defer { device.stop() }
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let part = try write(Array(Self.file.prefix(40_000)), "part.bin", in: directory)
            let whole = try write(Self.file, "whole.bin", in: directory)
            #expect(nrfloader(["fs", "upload", part, "/lfs/f.bin", "-q"] + device.options).status == 0)
            var result = nrfloader(["fs", "upload", whole, "/lfs/f.bin", "--json"] + device.options)
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n")
            #expect(lines.first?.contains("\"bytes_done\":40") == true, "\(result.stdoutText)")
            let chunk = transport == .serial ? 338 : 342
            let expected: String =
                "{\"attempts\":1,\"buf_size\":384,\"chunk\":\(chunk),\"command\":\"fs upload\",\"event\":\"result\","
                + "\"length\":102400,\"path\":\"/lfs/f.bin\",\"resumed_at\":40000,\"schema\":1,"
                + "\"target\":\"\(device.label)\"}"
            #expect(String(lines.last ?? "") == expected)
            result = nrfloader(["fs", "hash", "/lfs/f.bin", "--type", "sha256"] + device.options)
            #expect(result.stdoutText == "sha256 \(sha256Hex(Self.file)) (102400 bytes of /lfs/f.bin)\n")

            // A device file whose first part differs is written whole; so is any file with --no-resume.
            let other = try write(Array(repeating: 0x55, count: 1000), "other.bin", in: directory)
            #expect(nrfloader(["fs", "upload", other, "/lfs/o.bin", "-q"] + device.options).status == 0)
            result = nrfloader(["fs", "upload", whole, "/lfs/o.bin", "-q"] + device.options)
            #expect(result.stdoutText == "/lfs/o.bin: 102400 bytes written\n")
            result = nrfloader(["fs", "upload", whole, "/lfs/o.bin", "-q", "--no-resume"] + device.options)
            #expect(result.stdoutText == "/lfs/o.bin: 102400 bytes written\n")
        }
    }

    @Test("lost datagrams: each is sent again after --timeout, and the file arrives whole")
    func lostDatagrams() throws {
        let device = try SMPGroupVerbsTests.Device(.udp, ["--drop", "12", "--drop", "30", "--drop", "400"])
        defer { device.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let local = try write(Self.file, "file.bin", in: directory)
        var result = nrfloader(["fs", "upload", local, "/lfs/f.bin", "--timeout", "1", "-v"] + device.options)
        #expect(result.status == 0, "\(result.stderrText)")
        let resent = result.stderrText.split(separator: "\n").filter { $0.contains("reconnecting to send it again") }
        #expect(resent.count == 2, "\(result.stderrText)")
        let back = directory.file("back.bin")
        result = nrfloader(["fs", "download", "/lfs/f.bin", back, "--timeout", "1", "--json"] + device.options)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.split(separator: "\n").last?.hasPrefix("{\"attempts\":2,") == true)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: back))) == Self.file)
    }

    @Test("sim:smp with a dropped answer: the chunk is asked for again")
    func simulatedDroppedAnswer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let local = try write(Self.file, "file.bin", in: directory)
        let result = nrfloader(
            [
                "fs", "upload", local, "/lfs/f.bin", "--target", "sim:smp", "--sim-fault", "drop-notification@20",
                "--timeout", "1", "--json",
            ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText.split(separator: "\n").last?.hasPrefix("{\"attempts\":2,") == true, "\(result.stdoutText)"
        )
    }

    @Test("errors: a missing local file (66), a path on no mount point (76), a missing device file (76)")
    func errors() throws {
        var result = nrfloader(["fs", "upload", "/nonexistent/file", "/lfs/x", "--target", "sim:smp"])
        #expect(result.status == 66, "\(result.stderrText)")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let local = try write([1, 2, 3], "small.bin", in: directory)
        result = nrfloader(["fs", "upload", local, "/flash/x", "--target", "sim:smp"])
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device refused fs upload: rc 14 (FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND: the specified mount "
                + "point was not found or is not mounted)\n")
        result = nrfloader(["fs", "download", "/lfs/none", directory.file("out.bin"), "--target", "sim:smp"])
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device refused fs download: rc 3 (FS_MGMT_ERR_FILE_NOT_FOUND: the specified file does not "
                + "exist)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
    }
}

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private typealias R = HexRecords

/// Runs the built `nrfloader`.
func nrfloader(_ arguments: [String], input: [UInt8] = []) -> ProcessResult {
    ProcessRunner().run(TestPaths.nrfloader, arguments, input: input)
}

/// A small application image at 0x26000 with a start address, as a linker would write it.
let sampleHex = R.file([
    R.linear(0x0002), R.data(0x6000, [0x00, 0x00, 0x01, 0x20, 0xD1, 0x62, 0x02, 0x00]),
    R.data(0x6010, [0xAA, 0xBB]), R.line(type: 5, data: [0x00, 0x02, 0x62, 0xD1]), R.endOfFile,
])
let sampleBinary: [UInt8] =
    [0x00, 0x00, 0x01, 0x20, 0xD1, 0x62, 0x02, 0x00] + [UInt8](repeating: 0xFF, count: 8)
    + [0xAA, 0xBB]

@Suite struct ConvertCommandTests {
    @Test("convert IN.hex writes IN.bin, a summary on stderr and nothing on stdout")
    func defaultOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("app.hex", sampleHex)
        let result = nrfloader(["convert", input])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText == "\(input) -> \(directory.file("app.bin")): 18 bytes at 0x00026000, 2 regions "
                + "(0x00026000–0x00026007, 0x00026010–0x00026011), start 0x000262D1, sha256 "
                + "\(sha256Hex(sampleBinary))\n"
        )
        #expect(try directory.read("app.bin") == sampleBinary)
        #expect(try directory.contents() == ["app.bin", "app.hex"])
    }

    @Test("cat app.hex | nrfloader convert - -o - writes the binary to stdout")
    func pipe() {
        let result = nrfloader(["convert", "-", "-o", "-", "--quiet"], input: sampleHex)
        #expect(result.status == 0)
        #expect(result.stdout == sampleBinary)
        #expect(result.stderr.isEmpty)
    }

    @Test("--json prints one object with sorted keys on stdout and nothing on stderr")
    func json() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("app.hex", sampleHex)
        let result = nrfloader(["convert", input, "-o", directory.file("x.bin"), "--json"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(
            result.stdoutText
                == #"{"base_address":155648,"command":"convert","event":"result","format":"bin","input":""#
                + input
                + #"","output":""# + directory.file("x.bin") + #"","regions":[{"end":155655,"size":8,"start":155648},"#
                + #"{"end":155665,"size":2,"start":155664}],"schema":1,"sha256":""# + sha256Hex(sampleBinary)
                + #"","size":18,"start_address":{"address":156369,"type":"linear"}}"# + "\n"
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["schema"] as? Int == 1)
    }

    @Test(
        "--fill, --start, --end and --nordic shape the binary",
        arguments: [
            (
                ["--fill", "0x00"],
                [0x00, 0x00, 0x01, 0x20, 0xD1, 0x62, 0x02, 0x00] + [UInt8](repeating: 0, count: 8) + [0xAA, 0xBB]
            ),
            (["--start", "0x26004"], [0xD1, 0x62, 0x02, 0x00] + [UInt8](repeating: 0xFF, count: 8) + [0xAA, 0xBB]),
            (["--end", "0x26002"], [0x00, 0x00]),
            (["--nordic"], sampleBinary + [0xFF, 0xFF]),
        ] as [([String], [UInt8])])
    func shaping(options: [String], expected: [UInt8]) {
        let result = nrfloader(["convert", "-", "-o", "-", "-q"] + options, input: sampleHex)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdout == expected)
    }

    @Test("--to hex --base converts a binary back to Intel HEX")
    func toHex() {
        let result = nrfloader(
            ["convert", "-", "-o", "-", "-q", "--to", "hex", "--base", "0x26000"], input: [1, 2, 3])
        #expect(result.status == 0)
        #expect(result.stdoutText == ":020000040002F8\n:0360000001020397\n:00000001FF\n")
    }

    @Test("an application plus UICR words is refused with both regions named, and --nordic converts it")
    func uicr() {
        let hex = R.file([
            R.linear(0x0002), R.data(0x6000, [1, 2, 3, 4, 5]), R.linear(0x1000), R.data(0x1014, [0, 0x70, 0x07, 0]),
            R.endOfFile,
        ])
        let refused = nrfloader(["convert", "-", "-o", "-"], input: hex)
        #expect(refused.status == 65)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderrText == "Error: <stdin>: data at 0x00026000–0x00026004 and at 0x10001014–0x10001017 would "
                + "make a binary image over 64 MiB; crop it with --end 0x10000000 or use --nordic to drop the MBR and "
                + "UICR regions\n"
        )
        let nordic = nrfloader(["convert", "-", "-o", "-", "-q", "--nordic"], input: hex)
        #expect(nordic.status == 0)
        #expect(nordic.stdout == [1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF])
    }
}

@Suite struct ConvertFailureTests {
    @Test("bad input exits 65 with FILE:LINE and leaves an existing output intact, with no temporary file")
    func badInputKeepsOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("app.hex", Array((R.data(0, [1]) + "\n:0100000002FC\n").utf8))
        try directory.write("app.bin", [9, 9, 9])
        let result = nrfloader(["convert", input])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText == "Error: \(input):2: record checksum is 0xFC, expected 0xFD\n")
        #expect(try directory.read("app.bin") == [9, 9, 9])
        #expect(try directory.contents() == ["app.bin", "app.hex"])
    }

    @Test(
        "each kind of failure has its exit status and one error line",
        arguments: [
            (["convert", "/nonexistent/app.hex"], Int32(66), "Error: '/nonexistent/app.hex': no such file\n"),
            (["convert", "/"], 66, "Error: '/': cannot read: is a directory\n"),
            (["convert", "-"], 64, "Error: reading standard input needs -o FILE (or -o - for standard output)\n"),
            (
                ["convert", "-", "-o", "-", "--json"], 64,
                "Error: --json prints to stdout, so the image must go to a file: use -o FILE\n"
            ),
            (
                ["convert", "x.bin", "--to", "hex"], 64,
                "Error: --to hex needs --base ADDRESS, the address of the first byte\n"
            ),
            (["convert", "x.hex", "--fill", "0x100"], 64, "Error: --fill must be one byte (0x00 to 0xFF)\n"),
            (
                ["convert", "x.hex", "--start", "0x20", "--end", "0x10"], 64,
                "Error: --start 0x20 is not below --end 0x10\n"
            ),
            (["convert", "x.hex", "--fill", "zz"], 64, "Error: The value 'zz' is invalid for '--fill <fill>'\n"),
        ] as [([String], Int32, String)])
    func failures(arguments: [String], status: Int32, firstLine: String) {
        let result = nrfloader(arguments)
        #expect(result.status == status)
        if arguments.contains("--json") {
            // The JSON contract: the failure's error object, and nothing else, on stdout.
            #expect(result.stdoutText.hasPrefix(#"{"event":"error","exit_status":\#(status),"#))
            #expect(result.stdoutText.split(separator: "\n").count == 1)
        } else {
            #expect(result.stdout.isEmpty)
        }
        #expect(result.stderrText.hasPrefix(firstLine))
    }

    @Test("an output directory that does not exist exits 73")
    func cannotCreate() throws {
        let result = nrfloader(["convert", "-", "-o", "/nonexistent/dir/app.bin"], input: sampleHex)
        #expect(result.status == 73)
        #expect(
            result.stderrText == "Error: '/nonexistent/dir/app.bin': cannot create output: no such file or directory\n")
    }

    @Test("an empty file exits 65")
    func empty() {
        let result = nrfloader(["convert", "-", "-o", "-"], input: [])
        #expect(result.status == 65)
        #expect(result.stderrText == "Error: <stdin>: file is empty (no records and no end-of-file record)\n")
    }

    @Test("Ctrl-C exits 130 and leaves neither a partial output nor a temporary file")
    func interrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("app.bin", [7, 7])
        let child = ProcessRunner().start(TestPaths.nrfloader, ["convert", "-", "-o", directory.file("app.bin")])
        child.write(Array(sampleHex.prefix(40)))
        // The tool has opened its temporary output before it reads; wait until it exists, then interrupt.
        var seen = false
        for _ in 0..<500 where !seen {
            seen = (try directory.contents()).contains { $0.hasPrefix(".app.bin.") }
            if !seen { usleep(10_000) }
        }
        #expect(seen)
        child.send(SIGINT)
        let result = child.wait()
        #expect(result.status == 130)
        #expect(result.stdout.isEmpty)
        #expect(try directory.read("app.bin") == [7, 7])
        #expect(try directory.contents() == ["app.bin"])
    }

    @Test("--help lists the exit statuses")
    func help() {
        let result = nrfloader(["--help"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("   65  bad input data: hex, zip, catalog or init packet\n"))
        #expect(result.stdoutText.contains("   75  temporary failure: link lost or timed out (a retry may succeed)\n"))
    }
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    let result = ProcessRunner().run(
        "/usr/bin/env",
        ["python3", "-c", "import hashlib,sys;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"], input: bytes
    )
    return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
}

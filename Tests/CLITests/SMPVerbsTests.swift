import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// The SHA-256 TLV of `Tests/Data/mcuboot/ed25519.bin` (imgtool dumpinfo, `ed25519.dumpinfo.txt`).
private let uploadedHash = "b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90"

/// The SHA-256 TLV of the image the simulated device runs from the start (0.0.1, 4096 bytes of 0xA5), as it reports
/// it: SHA-256 of its 32-byte header and body (checked with Python's hashlib).
private let runningHash = "1927c74c30bcb311a8f6108cb9b4c610284e23330b4da5918bc02adb63044b4a"

/// The mcumgr-style verbs (`image list|test|confirm|erase`, `reset`, `echo`) run as a user runs them: the built
/// binary against `simulate-serial --protocol smp` on a pseudo-terminal, whose device keeps its state between
/// invocations, and against `--target sim:smp`, a fresh device each run.
@Suite(.serialized) struct SMPVerbsTests {
    /// The one JSON object of a `--json` run's stdout.
    private func jsonObject(_ result: ProcessResult) throws -> [String: Any] {
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stdoutText)")
        let line = try #require(lines.last)
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(value as? [String: Any])
    }

    private func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    private let header = ["IMAGE", "SLOT", "VERSION", "FLAGS", "HASH"]

    @Test("upload-only, list, test, list, reset, list, confirm, list: the swap MCUboot does, as the device shows it")
    func testResetConfirm() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let port = ["--port", simulator.port]

        let upload = nrfloader(["upload", "-q", "--smp-mode", "upload-only", "\(mcuboot)/ed25519.bin"] + port)
        #expect(upload.status == 0, "\(upload.stderrText)")

        var result = nrfloader(["image", "list"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdoutText
                == table([
                    header, ["0", "0", "0.0.1", "active confirmed bootable", runningHash],
                    ["0", "1", "2.0.0", "bootable", uploadedHash],
                ]))

        result = nrfloader(["image", "test", uploadedHash] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        let pending = table([
            header, ["0", "0", "0.0.1", "active confirmed bootable", runningHash],
            ["0", "1", "2.0.0", "pending bootable", uploadedHash],
        ])
        #expect(result.stdoutText == pending)
        result = nrfloader(["image", "list"] + port)
        #expect(result.stdoutText == pending)

        result = nrfloader(["reset"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "device reset\n")

        // MCUboot swapped for a test: the new image runs unconfirmed, and would revert to slot 1 on the next reset.
        result = nrfloader(["image", "list"] + port)
        #expect(
            result.stdoutText
                == table([
                    header, ["0", "0", "2.0.0", "active bootable", uploadedHash],
                    ["0", "1", "0.0.1", "confirmed bootable", runningHash],
                ]))

        result = nrfloader(["image", "confirm"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        let confirmed = table([
            header, ["0", "0", "2.0.0", "active confirmed bootable", uploadedHash],
            ["0", "1", "0.0.1", "bootable", runningHash],
        ])
        #expect(result.stdoutText == confirmed)
        result = nrfloader(["image", "list"] + port)
        #expect(result.stdoutText == confirmed)
    }

    @Test("image confirm HASH: the uploaded image pending permanently, then after the reset running and confirmed")
    func confirmByHash() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let port = ["--port", simulator.port]
        let upload = nrfloader(["upload", "-q", "--smp-mode", "upload-only", "\(mcuboot)/ed25519.bin"] + port)
        #expect(upload.status == 0, "\(upload.stderrText)")

        var result = nrfloader(["image", "confirm", uploadedHash, "--json"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try jsonObject(result)
        #expect(object["command"] as? String == "image confirm")
        let secondary = try #require((object["images"] as? [[String: Any]])?.last)
        #expect(secondary["hash"] as? String == uploadedHash && secondary["slot"] as? Int == 1)
        #expect(secondary["pending"] as? Bool == true && secondary["permanent"] as? Bool == true)

        // A test now is refused: the permanent swap is already pending.
        result = nrfloader(["image", "test", uploadedHash] + port)
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device refused image test: rc 28 (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already an "
                + "image operation pending)\n")

        #expect(nrfloader(["reset", "-q"] + port).status == 0)
        result = nrfloader(["image", "list"] + port)
        #expect(
            result.stdoutText
                == table([
                    header, ["0", "0", "2.0.0", "active confirmed bootable", uploadedHash],
                    ["0", "1", "0.0.1", "bootable", runningHash],
                ]))
    }

    @Test("--json: one result object per verb, with the slots as objects, parsed and checked")
    func json() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let port = ["--port", simulator.port, "--json"]
        #expect(
            nrfloader(["upload", "-q", "--smp-mode", "upload-only", "\(mcuboot)/ed25519.bin", "--port", simulator.port])
                .status == 0)

        var result = nrfloader(["image", "test", uploadedHash.uppercased()] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        var object = try jsonObject(result)
        #expect(object["event"] as? String == "result" && object["schema"] as? Int == 1)
        #expect(object["command"] as? String == "image test" && object["target"] as? String == simulator.port)
        #expect(object["attempts"] as? Int == 1)

        result = nrfloader(["image", "list"] + port)
        object = try jsonObject(result)
        #expect(object["command"] as? String == "image list")
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images.count == 2)
        let secondary = try #require(images.last)
        #expect(secondary["image"] as? Int == 0 && secondary["slot"] as? Int == 1)
        #expect(secondary["version"] as? String == "2.0.0" && secondary["hash"] as? String == uploadedHash)
        #expect(secondary["pending"] as? Bool == true && secondary["permanent"] as? Bool == false)
        #expect(secondary["active"] as? Bool == false && secondary["confirmed"] as? Bool == false)
        #expect(secondary["bootable"] as? Bool == true)
        #expect(images.first?["active"] as? Bool == true && images.first?["confirmed"] as? Bool == true)

        result = nrfloader(["reset"] + port)
        object = try jsonObject(result)
        #expect(object["command"] as? String == "reset" && object["answered"] as? Bool == true)

        // A refusal: the error object carries the message and exit status 76, and nothing else is printed.
        result = nrfloader(["image", "test", String(repeating: "0", count: 64)] + port)
        #expect(result.status == 76)
        object = try jsonObject(result)
        #expect(object["event"] as? String == "error" && object["exit_status"] as? Int == 76)
        #expect(
            object["message"] as? String
                == "device refused image test: rc 8 (IMG_MGMT_ERR_HASH_NOT_FOUND: no image with that hash, or the "
                + "image has no hash TLV)")
    }

    @Test("echo prints what the device echoed, escaped; errors name the device's refusal and exit 76")
    func echoAndRefusals() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let port = ["--port", simulator.port]

        // The transport's own connection probe is an echo too: only its answers (its text, its sequence numbers)
        // are kept from the machine.
        let echo = nrfloader(["echo", "hello, device", "--timeout", "1"] + port)
        #expect(echo.status == 0, "\(echo.stderrText)")
        #expect(echo.stdoutText == "hello, device\n")

        var result = nrfloader(["image", "test", String(repeating: "ab", count: 32)] + port)
        #expect(result.status == 76)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText
                == "Error: device refused image test: rc 8 (IMG_MGMT_ERR_HASH_NOT_FOUND: no image with that hash, "
                + "or the image has no hash TLV)\n")

        // Testing the running image is refused by the device.
        result = nrfloader(["image", "test", runningHash] + port)
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device refused image test: rc 33 (IMG_MGMT_ERR_IMAGE_SETTING_TEST_TO_ACTIVE_DENIED: "
                + "setting test to the active slot is not allowed)\n")
    }

    @Test("image erase: the uploaded slot is erased as Zephyr's img_mgmt does; a running or pending slot is refused")
    func erase() throws {
        let simulator = try SerialSimulator(["--protocol", "smp"])
        defer { simulator.directory.remove() }
        defer { _ = simulator.stop() }
        let port = ["--port", simulator.port]
        var result = nrfloader(["upload", "-q", "--smp-mode", "upload-only", "\(mcuboot)/ed25519.bin"] + port)
        #expect(result.status == 0, "\(result.stderrText)")

        // Without --slot: the device's default, slot 1, which holds the upload.
        result = nrfloader(["image", "erase"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "slot erased (the device's default, slot 1)\n")
        #expect(result.stderr.isEmpty)
        let runningOnly = table([header, ["0", "0", "0.0.1", "active confirmed bootable", runningHash]])
        result = nrfloader(["image", "list"] + port)
        #expect(result.stdoutText == runningOnly)

        // The running slot is in use: IMG_MGMT_ERR_NO_FREE_SLOT, and nothing changes.
        let noFreeSlot =
            "Error: device refused image erase: rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT: there is no free slot to place the "
            + "image)\n"
        result = nrfloader(["image", "erase", "--slot", "0"] + port)
        #expect(result.status == 76)
        #expect(result.stderrText == noFreeSlot)
        #expect(nrfloader(["image", "list"] + port).stdoutText == runningOnly)

        // A slot pending a test swap is in use too; erasing an empty slot 1 is fine.
        result = nrfloader(["upload", "-q", "--smp-mode", "upload-only", "\(mcuboot)/ed25519.bin"] + port)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(nrfloader(["image", "test", uploadedHash] + port).status == 0)
        result = nrfloader(["image", "erase", "--slot", "1", "--json"] + port)
        #expect(result.status == 76)
        #expect(result.stderrText == noFreeSlot)
        let refusal = try jsonObject(result)
        #expect(refusal["event"] as? String == "error" && refusal["exit_status"] as? Int == 76)

        // simulate-serial writes its transcript when it stops.
        _ = simulator.stop()
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        // The first erase request: op 2 | v2 (0a), len 1, group 1, id 5, {} (a0); its answer op 3 | v2 (0b), len 2,
        // group 1, id 5, zcbor's empty map (bf ff). Then the refused ones: {"slot": 0} and {"slot": 1}.
        #expect(transcript.contains("> 0a000001000100") && transcript.contains("< 0b000002000100"), "\(transcript)")
        #expect(transcript.contains("> 0a000007000100") && transcript.contains("a164736c6f7400"), "\(transcript)")
        #expect(transcript.contains("a164736c6f7401"), "\(transcript)")
    }

    @Test("image erase --target sim:smp: the simulated device's empty slot 1 is erased; --json says so")
    func eraseSimulated() throws {
        var result = nrfloader(["image", "erase", "--target", "sim:smp"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "slot erased (the device's default, slot 1)\n")
        result = nrfloader(["image", "erase", "--slot", "1", "--target", "sim:smp", "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try jsonObject(result)
        #expect(object["command"] as? String == "image erase" && object["slot"] as? Int == 1)
        // Slot 2 is not on a one-image device.
        result = nrfloader(["image", "erase", "--slot", "2", "--target", "sim:smp"])
        #expect(result.status == 76)
        #expect(result.stderrText.hasPrefix("Error: device refused image erase: rc 10 (IMG_MGMT_ERR_FLASH_OPEN_FAILED"))
    }

    @Test("--target sim:smp: a fresh simulated device each run, reached through the same verbs")
    func simulated() throws {
        var result = nrfloader(["image", "list", "--target", "sim:smp"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == table([header, ["0", "0", "0.0.1", "active confirmed bootable", runningHash]]))

        result = nrfloader(["echo", "hello \u{1B}[2J world", "--target", "sim:smp", "--json"])
        let object = try jsonObject(result)
        #expect(object["command"] as? String == "echo" && object["echo"] as? String == "hello \u{1B}[2J world")
        #expect(object["target"] as? String == "sim:smp" && object["attempts"] as? Int == 1)

        // What the device echoed reaches the terminal escaped.
        result = nrfloader(["echo", "bell\u{07}", "--target", "sim:smp"])
        #expect(result.stdoutText == "bell\\x07\n")

        // A lost answer is sent again on a new connection; -v shows it.
        result = nrfloader(["echo", "ping", "--target", "sim:smp", "--sim-fault", "drop-notification@1", "-v"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "ping\n")
        #expect(result.stderrText.contains("no answer to echo within 5.0 seconds; reconnecting to send it again"))

        // Every answer lost: timed out (75) after three sends.
        result = nrfloader([
            "image", "list", "--target", "sim:smp", "--sim-fault", "drop-notification@1+", "--timeout", "1",
        ])
        #expect(result.status == 75)
        #expect(result.stderrText == "Error: timed out after 1.0 seconds waiting for the answer to image state read\n")

        result = nrfloader(["reset", "--target", "sim:smp"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "device reset\n")
    }

    @Test(
        "usage errors: one line naming the problem, exit 64",
        arguments: [
            (
                ["image", "list", "--target", "C0:DE:00:00:00:0"],
                "Error: --target 'C0:DE:00:00:00:0' is neither sim:smp nor a Bluetooth address (AA:BB:CC:DD:EE:FF)"
            ),
            (
                ["image", "list", "--target", "sim:smp", "--adapter", "hci0"],
                "Error: --adapter needs --target ADDRESS or --name NAME"
            ),
            (["echo", "x"], "Error: give the device with --port PATH, --target udp:HOST[:PORT] or --target sim:smp"),
            (["reset", "--target", "sim"], "Error: unknown simulated target 'sim' (SMP commands reach sim:smp)"),
            (
                ["image", "test", "abc", "--target", "sim:smp"],
                "Error: HASH 'abc' is not 64 hex digits (the SHA-256 hash 'image list' shows)"
            ),
            (
                ["image", "erase", "--target", "sim:smp", "--baud", "9600"],
                "Error: --baud and --flow-control need --port"
            ),
            (
                ["echo", "x", "--port", "/dev/null", "--sim-fault", "stall@1"],
                "Error: --sim-fault needs --target sim:smp"
            ),
            (
                ["echo", "x", "--target", "sim:smp", "--sim-fault", "corrupt-packet@1"],
                "Error: --sim-fault 'corrupt-packet@1' is not simulated for sim:smp"
            ),
        ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) {
        let result = nrfloader(arguments)
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix(message), "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a port that does not exist is a missing input (66); --json still ends with the error object")
    func missingPort() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = directory.file("ttyACM9")
        let result = nrfloader(["image", "list", "--port", port, "--json"])
        #expect(result.status == 66)
        #expect(result.stderrText == "Error: '\(port)': no such file\n")
        let object = try jsonObject(result)
        #expect(object["event"] as? String == "error" && object["exit_status"] as? Int == 66)
    }

    @Test(
        "Ctrl-C while the device is being reached ends with status 130 and the error object 'cancelled'",
        arguments: [["image", "list"], ["upload", "\(mcuboot)/ed25519.bin"]])
    func interrupted(command: [String]) throws {
        // A pseudo-terminal with nothing behind it: nrfloader opens it and sends SMP echo probes that nobody answers.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "cannot open /dev/ptmx")
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN (Glibc's Swift module hides posix_openpt and ptsname).
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        let child = ProcessRunner().start(
            TestPaths.nrfloader, command + ["--port", "/dev/pts/\(number)", "--json"])
        // The first probe line (it starts with 06 09) is the condition: the command is inside its connection attempt.
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x06), ContinuousClock.now < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count > 0 { received += buffer.prefix(count) }
        }
        #expect(received.contains(0x06), "no probe arrived")
        child.send(SIGINT)
        let result = child.wait()
        #expect(result.status == 130)
        #expect(result.stderrText.hasSuffix("Error: cancelled\n"), "\(result.stderrText)")
        let last = try #require(result.stdoutText.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "error" && object["exit_status"] as? Int == 130)
    }

    @Test("--help of each verb names the device options and what the verb does")
    func help() {
        let image = nrfloader(["image", "--help"]).stdoutText
        for verb in ["list", "test", "confirm", "erase"] { #expect(image.contains("  \(verb) "), "\(image)") }
        for verb in [
            ["image", "list"], ["image", "test"], ["image", "confirm"], ["image", "erase"], ["reset"], ["echo"],
        ] {
            let help = nrfloader(verb + ["--help"])
            #expect(help.status == 0)
            for option in [
                "--target <target>", "--port <port>", "--baud <baud>", "--flow-control", "--timeout <timeout>",
                "--json",
            ] {
                #expect(help.stdoutText.contains(option), "\(verb): \(option)")
            }
        }
        #expect(nrfloader(["image", "erase", "--help"]).stdoutText.contains("--slot <slot>"))
        #expect(
            nrfloader(["reset", "--help"]).stdoutText.contains(
                "OVERVIEW: Reset an SMP (MCUmgr) device and wait, up to --timeout"))
        let root = nrfloader(["--help"]).stdoutText
        for verb in ["image", "reset", "echo"] { #expect(root.contains("  \(verb) "), "\(root)") }
    }
}

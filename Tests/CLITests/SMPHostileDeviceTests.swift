import Foundation
import TestSupport
import Testing

private let image = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ed25519.bin").path
/// `image list`'s hash of the simulated device's running image, and of `ed25519.bin` once uploaded.
private let uploadedHash = "b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90"

/// `upload --port` and the image verbs against `simulate-serial --protocol smp --smp-misbehave KIND`: a device that
/// lies or stalls after a correct start ends in a clean failure, bounded by `--timeout` and `--retries`, or in a true
/// success; `--json` ends with one error or result object.
@Suite(.serialized) struct SMPHostileDeviceTests {
    /// How an upload against each misbehaviour ends, with `--retries 1 --timeout 2`: the exit status and the error
    /// line (a prefix of it where the rest names the temporary port).
    static let uploads: [(kind: String, status: Int32, error: String)] = [
        (
            "stuck-offset", 75,
            "upload made no progress: the device answered 2 upload requests in a row without taking a byte (offsets "
                + "313, 313, of 9656 bytes)"
        ),
        (
            "offset-back", 76,
            "device violated SMP: the device moved its upload offset back from 313 to 249 after the chunk at 313; "
                + "only a restarted upload (offset 0) may go back"
        ),
        (
            "ignored-state-write", 76,
            "device state: the device accepted test, but a fresh read of its image state shows slot 1 -"
        ),
        (
            "duplicate-keys", 76,
            "device violated SMP: answer '09 00 00 FD 00 01 01 00 BF 66 69 6D 61 67 65 73 9F BF 64 73 6C 6F 74 00…': "
                + "SMP body: CBOR byte 120: map key 'images' appears twice in one map"
        ),
        (
            "huge-length", 76,
            "device violated SMP: answer '09 00 00 0D 00 01 01 00 BF 63 6F 66 66 5A FF FF FF FF 00 00 FF…': SMP body: "
                + "CBOR ends inside an item at byte 10 (4294967292 more bytes needed)"
        ),
        (
            "no-return", 75,
            "link lost again after 1 reconnects (the last: after the device's reset, connection failed: no answer to "
                + "SMP echo on '"
        ),
        ("drip", 75, "transport failed: no whole answer to SMP echo on '"),
        ("garbage", 0, ""),
    ]

    @Test("each misbehaviour ends in a clean failure or a true success", arguments: uploads)
    func upload(kind: String, status: Int32, error: String) throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator([
            "--protocol", "smp", "--smp-misbehave", kind, "--save-images", images.path,
        ])
        defer { simulator.directory.remove() }
        let result = nrfloader([
            "upload", "--port", simulator.port, "--json", "--retries", "1", "--timeout", "2", image,
        ])
        _ = simulator.stop()
        #expect(result.status == status, "\(kind): \(result.stderrText)")
        let lines = try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let final = try #require(lines.last)
        #expect(lines.filter { ["result", "error"].contains($0["event"] as? String) }.count == 1)
        if status == 0 {
            #expect(final["event"] as? String == "result")
            #expect(final["state"] as? String == "confirmed")
            #expect((final["image"] as? [String: Any])?["hash"] as? String == uploadedHash)
            let slot0 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: images.file("slot0.bin"))))
            #expect(slot0.prefix(9656) == ArraySlice([UInt8](try Data(contentsOf: URL(fileURLWithPath: image)))))
        } else {
            #expect(final["event"] as? String == "error")
            #expect(final["exit_status"] as? Int == Int(status))
            let message = try #require(final["message"] as? String)
            #expect(message.hasPrefix(error), "\(kind): \(message)")
            #expect(result.stderrText.hasSuffix("Error: \(message)\n"))
        }
    }

    @Test("the image verbs: a state change the device does not make, and a list with a repeated key, end 76")
    func verbs() throws {
        var simulator = try SerialSimulator(["--protocol", "smp", "--smp-misbehave", "ignored-state-write"])
        // Upload only, so that slot 1 holds an image to test.
        var result = nrfloader(["upload", "--port", simulator.port, "--smp-mode", "upload-only", "-q", image])
        #expect(result.status == 0, "\(result.stderrText)")
        result = nrfloader(["image", "test", uploadedHash, "--port", simulator.port])
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device accepted image test, but a fresh read of its image state shows slot 1 -, not "
                + "pending\n")
        #expect(result.stdoutText.isEmpty)
        result = nrfloader(["image", "erase", "--port", simulator.port, "--json"])
        #expect(result.status == 76)
        #expect(
            result.stderrText
                == "Error: device accepted image erase, but a fresh read of its image state shows slot 1 - still "
                + "holding version 2.0.0\n")
        _ = simulator.stop()
        simulator.directory.remove()

        simulator = try SerialSimulator(["--protocol", "smp", "--smp-misbehave", "duplicate-keys"])
        defer { simulator.directory.remove() }
        result = nrfloader(["image", "list", "--port", simulator.port])
        _ = simulator.stop()
        #expect(result.status == 76)
        #expect(result.stdoutText.isEmpty, "a fake slot must not be printed")
        #expect(result.stderrText.contains("map key 'images' appears twice in one map"))
    }

    @Test("--smp-misbehave is refused without --protocol smp")
    func refusedForDFU() {
        let result = nrfloader(["simulate-serial", "--port", "/tmp/unused", "--smp-misbehave", "drip"])
        #expect(result.status == 64)
        #expect(result.stderrText.contains("--smp-misbehave needs --protocol smp"))
    }
}

import Foundation
import TestSupport
import Testing

private let ncs = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ncs").path

/// An nRF Connect SDK `dfu_application.zip` (two images: the nRF5340 application and network cores) through
/// `nrfloader info`, `upload --target sim:smp`, and `upload --port` against `simulate-serial --protocol smp`, run as
/// a user runs them.
@Suite(.serialized) struct SMPPackageCommandTests {
    private static let appHash = "29fa808f06e92f7f95d770ac2d324c302dccecdc0b2a3178684dc86ee30224a9"
    private static let netHash = "839bbe3f2c6f93dc91fc7479b3e0f1310486d3887714dda6b48800dcd7c97010"
    private static let confirmedLines =
        "image 0 'app_update.bin' 2.1.0.7 (hash 29fa808f06e92f7f…) confirmed by the device: slot 0, active "
        + "confirmed; 20663 bytes uploaded\n"
        + "image 1 'net_core_app_update.bin' 1.4.0 (hash 839bbe3f2c6f93dc…) confirmed by the device: slot 0, "
        + "active confirmed; 12663 bytes uploaded\n"

    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Image 0 in slot 0 and image 1 in slot 2, byte for byte.
    private func expectSlots(in directory: String) throws {
        let app = try bytes("\(ncs)/app/app_update.bin")
        let net = try bytes("\(ncs)/net/net_core_app_update.bin")
        #expect(try bytes(directory + "/slot0.bin").prefix(app.count) == ArraySlice(app))
        #expect(try bytes(directory + "/slot2.bin").prefix(net.count) == ArraySlice(net))
        #expect(FileManager.default.fileExists(atPath: directory + "/slot3.bin"))
    }

    @Test("sim:smp: both images confirmed after one reset, each in its image's slot 0 byte for byte")
    func simulated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = "\(ncs)/dfu_application.zip"
        let result = nrfloader([
            "upload", "--target", "sim:smp", input, "--sim-speed", "0", "--sim-save-images", directory.path,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == Self.confirmedLines)
        #expect(
            result.stderrText.hasPrefix(
                "uploading \(input) (2 MCUboot images) to sim:smp over SMP: part 1/2 image 0 'app_update.bin' "
                    + "(2.1.0+7, 20663 bytes), part 2/2 image 1 'net_core_app_update.bin' (1.4.0+0, 12663 bytes)\n"),
            "\(result.stderrText)")
        #expect(result.stderrText.contains("part 2/2: sending firmware (12663 bytes)"), "\(result.stderrText)")
        try expectSlots(in: directory.path)
    }

    @Test("--image 1 sends a lone network core image to image 1: confirmed there, byte for byte in slot 2")
    func loneImageNumber() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = nrfloader([
            "upload", "--target", "sim:smp", "--sim-images", "2", "--image", "1", "\(ncs)/net/net_core_app_update.bin",
            "--sim-speed", "0", "--sim-save-images", directory.path,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "image 1.4.0 (hash 839bbe3f2c6f93dc…) confirmed by the device: image 1 slot 0, active confirmed; "
                + "12663 bytes uploaded\n")
        let net = try bytes("\(ncs)/net/net_core_app_update.bin")
        #expect(try bytes(directory.path + "/slot2.bin").prefix(net.count) == ArraySlice(net))
    }

    @Test("--image is refused, before any device is touched, for a package and for nRF5 DFU firmware (exit 64)")
    func imageNumberRefused() throws {
        let package = nrfloader(["upload", "--target", "sim:smp", "--image", "1", "\(ncs)/dfu_application.zip"])
        #expect(package.status == 64)
        #expect(
            package.stderrText
                == "Error: '\(ncs)/dfu_application.zip' is an nRF Connect SDK package, whose manifest gives each "
                + "image its number; an image number applies to a lone MCUboot image\n")
        let dfu = nrfloader(["upload", "--target", "sim", "--image", "1", "blinky-pca10040"])
        #expect(dfu.status == 64)
        #expect(
            dfu.stderrText
                == "Error: 'blinky-pca10040' is nRF5 DFU firmware, which has no image numbers; an image number "
                + "applies to a lone MCUboot image\n")
        #expect(nrfloader(["upload", "--target", "sim:smp", "--image", "16", "x.bin"]).status == 64)
    }

    @Test("--json: the begin event names each image, progress runs per part, the result lists every image's state")
    func simulatedJSON() throws {
        let result = nrfloader([
            "upload", "--target", "sim:smp", "\(ncs)/dfu_application.zip", "--sim-speed", "0", "--json",
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderr.isEmpty)
        let lines = try jsonLines(result.stdoutText)
        #expect(lines.allSatisfy { $0["schema"] as? Int == 1 })
        let begin = try #require(lines.first)
        #expect(begin["event"] as? String == "begin")
        let parts = try #require(begin["parts"] as? [[String: Any]])
        #expect(parts.map { $0["image"] as? Int } == [0, 1])
        #expect(parts.map { $0["file"] as? String } == ["app_update.bin", "net_core_app_update.bin"])
        #expect(parts.map { $0["size"] as? Int } == [20663, 12663])
        #expect(lines.filter { $0["event"] as? String == "result" }.count == 1)
        #expect(
            lines.contains {
                $0["event"] as? String == "progress" && $0["part"] as? Int == 2 && $0["parts"] as? Int == 2
                    && $0["bytes_confirmed"] as? Int == 12663 && $0["total_bytes"] as? Int == 12663
            })
        #expect(
            lines.contains {
                $0["event"] as? String == "log" && $0["message"] as? String == "uploading image 1 (2 of 2): 12663 bytes"
            })
        let final = try #require(lines.last)
        #expect(final["event"] as? String == "result" && final["state"] as? String == "confirmed")
        #expect(final["bytes_uploaded"] as? Int == 20663 + 12663)
        let images = try #require(final["images"] as? [[String: Any]])
        #expect(images.map { $0["image"] as? Int } == [0, 1])
        #expect(images.map { $0["hash"] as? String } == [Self.appHash, Self.netHash])
        #expect(images.map { $0["state"] as? String } == ["confirmed", "confirmed"])
        #expect(images.allSatisfy { $0["slot"] as? Int == 0 && $0["active"] as? Bool == true })
        #expect(images.map { $0["version"] as? String } == ["2.1.0.7", "1.4.0"])
    }

    @Test("a link loss in the middle of image 1 resumes from the device's offset: no byte it holds goes twice")
    func linkLossInImageOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = nrfloader([
            "upload", "--target", "sim:smp", "\(ncs)/dfu_application.zip", "--sim-speed", "0", "--json",
            "--sim-fault", "disconnect@28000", "--sim-save-images", directory.path,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try jsonLines(result.stdoutText)
        let logs = lines.compactMap { $0["event"] as? String == "log" ? $0["message"] as? String : nil }
        let resumed = try #require(logs.first { $0.hasPrefix("resuming the upload at offset") }, "\(logs)")
        #expect(resumed.contains(" of image 1, where the device stopped"))
        let final = try #require(lines.last)
        #expect(final["state"] as? String == "confirmed")
        #expect((final["smp"] as? [String: Any])?["reconnects"] as? Int == 1)
        let images = try #require(final["images"] as? [[String: Any]])
        #expect(images.map { $0["bytes_uploaded"] as? Int } == [20663, 12663])
        try expectSlots(in: directory.path)
    }

    @Test(
        "a bad package is one line naming the problem and the place, exit 65, before anything is sent",
        arguments: [
            (
                ["\(ncs)/no-manifest.zip"],
                "\(ncs)/no-manifest.zip: no manifest.json; not an nRF Connect SDK dfu_application.zip"
            ),
            (
                ["\(ncs)/missing-file.zip"],
                "\(ncs)/missing-file.zip: manifest.json files[1].file names 'net_core_app_update.bin', which the "
                    + "archive does not hold"
            ),
            (
                ["\(ncs)/dfu_application.zip", "--sim-images", "1"],
                "\(ncs)/dfu_application.zip: manifest.json image_index of 'net_core_app_update.bin' is 1, but the "
                    + "simulated device updates 1 image (--sim-images 1)"
            ),
            (
                ["\(ncs)/hash-mismatch.zip"],
                "\(ncs)/hash-mismatch.zip/net_core_app_update.bin: SHA256 TLV is \(netHash) but header, body and "
                    + "protected TLVs hash to "
            ),
        ] as [([String], String)])
    func badPackages(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = nrfloader(
            ["upload", "--target", "sim:smp", "--sim-speed", "0", "--sim-save-images", directory.path] + arguments)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix("Error: " + message), "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let json = nrfloader(["upload", "--target", "sim:smp", "--sim-speed", "0", "--json"] + arguments)
        #expect(json.status == 65)
        let final = try #require(try jsonLines(json.stdoutText).last)
        #expect(final["event"] as? String == "error" && final["exit_status"] as? Int == 65)
        #expect((final["message"] as? String)?.hasPrefix(message) == true)
    }

    @Test("info shows the manifest and each image, in text and --json")
    func info() throws {
        let input = "\(ncs)/dfu_application.zip"
        let text = nrfloader(["info", input])
        #expect(text.status == 0, "\(text.stderrText)")
        let lines = text.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "file:   \(input)")
        #expect(lines.contains("format: nRF Connect SDK DFU package (manifest format-version 0), 2 MCUboot images"))
        #expect(lines.contains("name:   nrf5340-two-cores"))
        #expect(lines.contains { $0.hasPrefix("image 1:") && $0.hasSuffix("net_core_app_update.bin (12663 bytes)") })
        #expect(lines.contains { $0.hasPrefix("board:") && $0.hasSuffix(" nrf5340dk_nrf5340_cpunet") })
        #expect(lines.contains { $0.hasPrefix("manifest slots:") && $0.hasSuffix(" primary 3, secondary 4") })
        #expect(lines.contains { $0.hasPrefix("sha256 TLV:") && $0.hasSuffix(" \(Self.netHash) (matches)") })
        let json = nrfloader(["info", input, "--json", "--verify-key", "\(ncs)/../ecdsa-p256.pub.pem"])
        #expect(json.status == 0, "\(json.stderrText)")
        let object = try #require(try jsonLines(json.stdoutText).last)
        #expect(object["kind"] as? String == "mcuboot_package")
        #expect(object["format_version"] as? Int == 0 && object["name"] as? String == "nrf5340-two-cores")
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images.map { $0["image_index"] as? Int } == [0, 1])
        #expect(images.map { $0["slot_index_secondary"] as? Int } == [2, 4])
        #expect(images.map { $0["load_address"] as? Int } == [0x10200, 0x0100_8800])
        let mcuboot = images.compactMap { $0["mcuboot"] as? [String: Any] }
        #expect(
            mcuboot.compactMap { ($0["sha256_tlv"] as? [String: Any])?["value"] as? String } == [
                Self.appHash, Self.netHash,
            ])
        #expect(mcuboot.allSatisfy { ($0["signature"] as? [String: Any])?["valid"] as? Bool == true })
    }

    @Test("text from the manifest reaches the terminal escaped; --json carries it as JSON escapes")
    func escapesManifestText() throws {
        let input = "\(ncs)/escape.zip"
        let text = nrfloader(["info", input])
        #expect(text.status == 0, "\(text.stderrText)")
        #expect(text.stdoutText.contains("name:   evil\\x1b]52;c;aGk=\\x07\n"))
        #expect(text.stdoutText.contains(" board\\x1b[31mred\n"))
        #expect(!text.stdout.contains(0x1B))
        let json = nrfloader(["info", input, "--json"])
        #expect(json.stdoutText.contains(#""name":"evil\u001b]52;c;aGk=\u0007""#), "\(json.stdoutText)")
        let upload = nrfloader(["upload", "--target", "sim:smp", input, "--sim-speed", "0"])
        #expect(upload.status == 0, "\(upload.stderrText)")
        #expect(upload.stderrText.contains("(1 MCUboot image) to sim:smp"))
        #expect(!upload.stderr.contains(0x1B) && !upload.stdout.contains(0x1B))
    }

    @Test("upload --port: the NCS zip goes over SMP to a two-image simulate-serial; both images confirmed")
    func serial() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator([
            "--protocol", "smp", "--smp-images", "2", "--smp-slot-size", "32768", "--save-images", images.path,
        ])
        defer { simulator.directory.remove() }
        let result = nrfloader(["upload", "--port", simulator.port, "\(ncs)/dfu_application.zip"])
        let served = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == Self.confirmedLines)
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        try expectSlots(in: images.path)
        let transcript = try String(contentsOfFile: simulator.transcript, encoding: .utf8)
        #expect(!transcript.contains("# dropped"))
    }

    @Test("upload --port --json: the result lists both images as the device reports them")
    func serialJSON() throws {
        let simulator = try SerialSimulator(["--protocol", "smp", "--smp-images", "2", "--smp-slot-size", "32768"])
        defer { simulator.directory.remove() }
        let result = nrfloader([
            "upload", "--port", simulator.port, "--smp-mode", "test", "--json", "\(ncs)/dfu_application.zip",
        ])
        _ = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        let final = try #require(try jsonLines(result.stdoutText).last)
        #expect(final["event"] as? String == "result" && final["state"] as? String == "testing")
        let images = try #require(final["images"] as? [[String: Any]])
        #expect(images.map { $0["state"] as? String } == ["testing", "testing"])
        #expect(images.map { $0["confirmed"] as? Bool } == [false, false])
        #expect(images.map { $0["hash"] as? String } == [Self.appHash, Self.netHash])
    }
}

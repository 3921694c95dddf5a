import Foundation
import TestSupport
import Testing

private let firmwareDirectory = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path
private let packageDirectory = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path

/// The JSON objects of `--json` output, one per line.
private func objects(_ result: ProcessResult) throws -> [[String: Any]] {
    try result.stdoutText.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

/// A fresh empty directory for `--sim-save-images`.
private func imageDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nrfloader-images-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct UploadRecoveryTests {
    static let selftest = "part 1/1: application confirmed by the device: 131804 bytes"

    @Test(
        "a lost or corrupted packet, a lost notification, a disconnect or a reboot is recovered in the same run",
        arguments: [
            ("sim", "drop-packet@40"), ("sim", "corrupt-packet@100"), ("sim", "drop-notification@9"),
            ("sim:buttonless", "drop-packet@40"), ("sim:buttonless", "reboot@60000"),
            ("sim:buttonless", "drop-notification@20"), ("sim:legacy", "drop-packet@700"),
            ("sim:legacy", "corrupt-packet@1500"), ("sim:legacy", "drop-notification@30"),
            ("sim:legacy", "disconnect@50000"), ("sim:legacy", "reboot@70000"),
        ])
    func recovers(target: String, fault: String) throws {
        let saved = try imageDirectory()
        defer { try? FileManager.default.removeItem(at: saved) }
        let result = nrfloader([
            "upload", "--target", target, "selftest-pca10040", "--sim-speed", "0", "-q", "--sim-fault", fault,
            "--sim-save-images", saved.path,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasPrefix(Self.selftest))
        let activated = try Data(contentsOf: saved.appendingPathComponent("application.bin"))
        let input = try Data(contentsOf: URL(fileURLWithPath: "\(firmwareDirectory)/selftest-pca10040.bin"))
        #expect(activated == input)
    }

    @Test("a legacy Activate and Reset answered with an error is exit 76 with the decoded code, never 'confirmed'")
    func legacyActivateRejected() throws {
        let saved = try imageDirectory()
        defer { try? FileManager.default.removeItem(at: saved) }
        let result = nrfloader([
            "upload", "--target", "sim:legacy", "--sim-fault", "respond@05:04", "selftest-pca10040", "--sim-speed",
            "0", "--sim-save-images", saved.path,
        ])
        #expect(result.status == 76)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText.hasSuffix(
                "Error: target rejected activateAndReset (0x05) with dataSizeExceedsLimit (0x04)\n"))
        #expect(!result.stderrText.contains("confirmed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: saved.path).isEmpty)

        let json = nrfloader([
            "upload", "--target", "sim:legacy", "--sim-fault", "respond@05:04", "selftest-pca10040", "--sim-speed",
            "0", "--json",
        ])
        #expect(json.status == 76)
        let last = try #require(try objects(json).last)
        #expect(last["event"] as? String == "error")
        #expect(last["exit_status"] as? Int == 76)
    }

    @Test(
        "the result says per part how the device confirmed it",
        arguments: [
            (
                "sim", "blinky-pca10040",
                #"{"crc32":"0xA4B30F4B","method":"calculate_checksum","response":null}"#
            ),
            ("sim:legacy", "blinky-pca10040", #"{"crc32":null,"method":"validate_firmware","response":"10 04 01"}"#),
        ])
    func confirmationField(target: String, input: String, confirmation: String) throws {
        let result = nrfloader(["upload", "--target", target, input, "--sim-speed", "0", "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let last = try #require(result.stdoutText.split(separator: "\n").last)
        #expect(last.contains(#""confirmation":\#(confirmation),"#), "\(last)")
    }

    @Test("a catalog id without --dfu goes to a legacy or a Secure bootloader with the init packet it needs")
    func initPacketFollowsDevice() {
        for target in ["sim", "sim:legacy", "sim:buttonless", "sim:legacy-v1"] {
            let result = nrfloader(["upload", "--target", target, "blinky-pca10040", "--sim-speed", "0", "-q"])
            #expect(result.status == 0, "\(target): \(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("part 1/1: application confirmed by the device: 604 bytes"))
        }
        let hex = nrfloader([
            "upload", "--target", "sim:legacy", "\(firmwareDirectory)/blinky-pca10040.hex", "--sd-req", "0x0101",
            "--sim-speed", "0", "-q",
        ])
        #expect(hex.status == 0, "\(hex.stderrText)")
    }

    @Test(
        "a package made for one protocol is refused by a bootloader of the other before anything is sent",
        arguments: [
            (
                "sim:legacy", "nrfutil617-blinky-unsigned.zip",
                "Error: the device runs a legacy dfu bootloader, and the input has no legacy init packet (a package "
                    + "made for the other protocol, or a catalog entry without 'legacy' dfu fields)\n"
            ),
            (
                "sim", "adafruit-blinky-dfu05.zip",
                "Error: the device runs a secure dfu bootloader, and the input has no secure init packet (a package "
                    + "made for the other protocol, or a catalog entry without 'secure' dfu fields)\n"
            ),
        ])
    func packageForOtherProtocol(target: String, package: String, message: String) {
        let result = nrfloader([
            "upload", "--target", target, "\(packageDirectory)/\(package)", "--sim-speed", "0", "-q",
        ])
        #expect(result.status == 65)
        #expect(result.stderrText == message)
    }

    @Test("--dfu keeps the protocol the user chose, whatever the device runs")
    func explicitProtocol() {
        let result = nrfloader([
            "upload", "--target", "sim:legacy", "blinky-pca10040", "--dfu", "secure", "--sim-speed", "0", "-q",
        ])
        #expect(result.status == 76)
        #expect(result.stderrText.hasPrefix("Error: target rejected initializeDFUParameters (0x02)"))
    }
}

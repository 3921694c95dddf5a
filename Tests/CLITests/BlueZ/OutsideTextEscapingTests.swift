import Foundation
import TestSupport
import Testing

/// A device in radio range picks its own name: one holding terminal escapes must reach the terminal as visible
/// `\xHH` escapes through `scan` and `upload --name`, and as JSON escapes with `--json` (issue 16, point 5).
@Suite("outside text from devices is escaped", .tags(.integration))
struct OutsideTextEscapingTests {
    private static let peripheral = "C0:DE:00:00:00:02"
    private static let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
    /// ESC [2J (clear the screen), BEL, DEL and a C1 CSI (U+009B) inside an advertised name.
    private static let hostileName = "Dfu\u{1B}[2J\u{07}\u{7F}\u{9B}1m"
    private static let visibleName = #"Dfu\x1b[2J\x07\x7f\x9b1m"#

    private func nrfloader(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(TestPaths.nrfloader, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    @Test(
        "scan and upload --name show an advertised name with escapes as visible escapes",
        .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func advertisedName() async throws {
        try await BlueZRig.with { rig in
            _ = try await rig.startSimulate([
                "--adapter", "hci1", "--name", Self.hostileName, "--sd-id", "0x0101", "--flash", "instant",
            ])
            let scan = nrfloader(["scan", "--adapter", "hci0", "--timeout", "3"], rig: rig)
            #expect(scan.status == 0, "\(scan.stderrText)\nrig log:\n\(rig.log)")
            #expect(scan.stdoutText.contains("\(Self.peripheral)  \(Self.visibleName)"), "\(scan.stdoutText)")
            #expect(!scan.stdout.contains(0x1B) && !scan.stderr.contains(0x1B))

            let json = nrfloader(["scan", "--adapter", "hci0", "--timeout", "3", "--json"], rig: rig)
            #expect(json.status == 0, "\(json.stderrText)")
            #expect(json.stdoutText.contains(#""name":"Dfu\u001b[2J\u0007\u007f\u009b1m""#), "\(json.stdoutText)")
            let objects = try json.stdoutText.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.first { $0["event"] as? String == "device" }?["name"] as? String == Self.hostileName)
            #expect(objects.last?["event"] as? String == "result")

            let upload = nrfloader(
                [
                    "upload", "--adapter", "hci0", "--name", Self.hostileName,
                    Self.packages + "/nrfutil617-blinky-unsigned.zip",
                ], rig: rig)
            #expect(upload.status == 0, "\(upload.stderrText)\nrig log:\n\(rig.log)")
            #expect(
                upload.stderrText.hasPrefix(
                    "uploading \(Self.packages)/nrfutil617-blinky-unsigned.zip to '\(Self.visibleName)' "
                        + "(\(Self.peripheral)) via hci0: application 604 bytes\n"), "\(upload.stderrText)")
            #expect(!upload.stdout.contains(0x1B) && !upload.stderr.contains(0x1B))
            #expect(!upload.stderr.contains(0x9B) && !upload.stderr.contains(0x7F))
        }
    }
}

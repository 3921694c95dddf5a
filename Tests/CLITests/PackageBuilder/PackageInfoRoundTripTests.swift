import Foundation
import TestSupport
import Testing

/// `info` on packages `package` made: every legacy init packet field, and the same `--json` as for the vendor tools'
/// packages made from the same inputs.
@Suite struct PackageInfoRoundTripTests {
    static func run(_ arguments: [String]) -> ProcessResult {
        ProcessRunner().run(TestPaths.nrfloader, arguments)
    }

    @Test(
        "info --json of a package made by package equals info --json of nrfutil's and adafruit's",
        arguments: [
            "nrfutil-gaps.zip", "nrfutil-sd-bl-app.zip", "nrfutil-external.zip", "adafruit-gaps.zip",
            "adafruit-sd-bl-dfu06.zip",
        ])
    func roundTrip(_ name: String) throws {
        let example = try #require(PackageCommandTests.cases.first { $0.description == name })
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let made = Self.run(["package", "-q"] + example.arguments + [directory.file(name)])
        #expect(made.status == 0, "\(made.stderrText)")
        let ours = Self.run(["info", "--json", directory.file(name)])
        let theirs = Self.run(["info", "--json", example.reference])
        #expect(ours.status == 0, "\(ours.stderrText)")
        #expect(theirs.status == 0)
        #expect(
            ours.stdoutText.replacingOccurrences(of: directory.file(name), with: "F")
                == theirs.stdoutText.replacingOccurrences(of: example.reference, with: "F"))
    }

    @Test("info shows every legacy init packet field, firmware_crc16 included")
    func legacyFields() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.file("legacy.zip")
        let made = Self.run([
            "package", "-q", "--dfu", "legacy", "--dfu-ver", "0.6", "--dev-type", "0x52", "--dev-revision", "3",
            "--application-version", "0x10", "--sd-req", "0x0101,0x00B6", "--application",
            PackageCommandTests.blinky, zip,
        ])
        #expect(made.status == 0)
        let text = Self.run(["info", zip])
        #expect(text.status == 0)
        #expect(
            text.stdoutText == """
                file:                  \(zip)
                format:                legacy DFU (dfu_version 0.6)
                part:                  application: blinky-pca10040.bin (604 bytes), blinky-pca10040.dat (20 bytes)
                  device_type:         0x0052
                  device_revision:     0x0003
                  application_version: 0x00000010
                  softdevice_req:      0x0101 0x00B6
                  validation:          CRC-16 0xDEAD (dfu_version 0.6 extension)
                  ext_packet_id:       0
                  firmware_crc16:      0xDEAD
                  signature:           unsigned

                """)
        let json = Self.run(["info", "--json", zip])
        #expect(json.stdoutText.contains(#""ext_packet_id":0,"firmware_crc16":57005,"firmware_hash":null"#))
    }
}

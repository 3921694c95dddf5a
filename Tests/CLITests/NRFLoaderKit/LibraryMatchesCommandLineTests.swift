import Foundation
import NRFLoaderKit
import NRFLoaderSimulator
import TestSupport
import Testing

/// The library (NRFLoaderKit) and the command line give the same answer for the same request: each test runs both.
@Suite("NRFLoaderKit and the command line agree")
struct LibraryMatchesCommandLineTests {
    static let packageBuilder = TestPaths.repositoryRoot.path + "/Tests/Data/package-builder"

    static var fastDevice: SimulatedDeviceOptions {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        return options
    }

    /// The members that change from run to run: timings.
    static let timingMembers = ["elapsed_ms", "bytes_per_second", "eta_ms"]

    static func withoutTimings(_ line: String) throws -> [String: JSONScalar] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        var result: [String: JSONScalar] = [:]
        for (key, value) in object where !timingMembers.contains(key) { result[key] = JSONScalar(value) }
        return result
    }

    /// The local time in a zip's first local file header (MS-DOS date and time), to make the same archive again.
    static func timestamp(ofZip bytes: [UInt8]) throws -> FirmwarePackage.Timestamp {
        try #require(bytes.count > 14 && bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]))
        let time = Int(bytes[10]) | Int(bytes[11]) << 8
        let date = Int(bytes[12]) | Int(bytes[13]) << 8
        return FirmwarePackage.Timestamp(
            year: 1980 + date >> 9, month: date >> 5 & 0xF, day: date & 0x1F, hour: time >> 11,
            minute: time >> 5 & 0x3F, second: (time & 0x1F) * 2)
    }

    /// The options of `package --hw-version 52 --sd-req 0x124,0x101,0xB6 --application-version-string 1.2.3
    /// --application app-gaps-mbr-uicr.hex`, through the public API.
    static var gapsOptions: FirmwarePackage.SecureOptions {
        get throws {
            var options = FirmwarePackage.SecureOptions()
            options.hardwareVersion = "52"
            options.softDeviceRequirements = ["0x124,0x101,0xB6"]
            options.applicationVersionString = "1.2.3"
            options.application = try ImageFile(contentsOfFile: packageBuilder + "/app-gaps-mbr-uicr.hex")
            return options
        }
    }

    @Test("the events are the JSON Lines `upload --json` prints, in the same order")
    func eventsAreTheCLIsJSON() async throws {
        var lines: [String] = []
        let device = try SimulatedTarget(.secure, options: Self.fastDevice)
        let summary = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: device.target).run {
            event in
            // The command line draws progress at most 10 times a second; compare everything else.
            if case .progress = event { return }
            lines.append(event.json)
        }
        let cli = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--target", "sim", "--sim-speed", "0", "--json", "blinky-pca10040"])
        #expect(cli.status == 0, "\(cli.stderrText)")
        let printed = cli.stdoutText.split(separator: "\n").map(String.init).filter { !$0.contains("\"progress\"") }
        #expect(printed.count == lines.count)
        for (library, command) in zip(lines, printed) {
            #expect(try Self.withoutTimings(library) == Self.withoutTimings(command))
        }
        #expect(summary.bytesConfirmed == 604)
        #expect(summary.parts.map(\.name) == ["application"])
        #expect(device.images.map(\.name) == ["application"])
        #expect(device.images.first?.bytes.count == 604)
    }

    @Test("a Secure DFU package is byte for byte the zip `nrfloader package` writes for the same options")
    func sameAsCommandLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = ProcessRunner().run(
            TestPaths.nrfloader,
            [
                "package", "--hw-version", "52", "--sd-req", "0x124,0x101,0xB6", "--application-version-string",
                "1.2.3", "--application", Self.packageBuilder + "/app-gaps-mbr-uicr.hex", "--quiet",
                directory.file("cli.zip"),
            ])
        #expect(cli.status == 0, "\(cli.stderrText)")
        let written = try directory.read("cli.zip")
        let package = try FirmwarePackage(secure: try Self.gapsOptions)
        #expect(try package.zipArchive(timestamp: try Self.timestamp(ofZip: written)) == written)
        #expect(package.imageNames == ["app-gaps-mbr-uicr.bin"])
        #expect(package.entries.map(\.name) == ["app-gaps-mbr-uicr.bin", "app-gaps-mbr-uicr.dat", "manifest.json"])
        #expect(package.warningKinds == [.unsigned])
        #expect(package.warnings == ["warning: no signingKey: the package is unsigned, for open bootloaders only"])
    }
}

/// A JSON member's value, comparable: its canonical text (keys sorted).
struct JSONScalar: Equatable {
    let text: String

    init(_ value: Any) {
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        text = data.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }
}

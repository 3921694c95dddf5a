import Foundation
import NRFLoaderKit
import TestSupport
import Testing

/// nrfutil-compatible package generation, through the public API alone.
@Suite struct FirmwarePackageTests {
    static var gapsOptions: FirmwarePackage.SecureOptions {
        get throws {
            var options = FirmwarePackage.SecureOptions()
            options.hardwareVersion = "52"
            options.softDeviceRequirements = ["0x124,0x101,0xB6"]
            options.applicationVersionString = "1.2.3"
            options.application = try ImageFile(contentsOfFile: Fixtures.packageBuilder + "/app-gaps-mbr-uicr.hex")
            return options
        }
    }

    @Test("its init packets are the ones nrfutil 6.1.7 wrote for the same inputs")
    func sameAsNrfutil() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try FirmwarePackage(secure: try Self.gapsOptions)
        let ours = try directory.write(
            "ours.zip",
            try package.zipArchive(
                timestamp: FirmwarePackage.Timestamp(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 6)))
        guard case .dfuPackage(let made) = try FirmwareInfo(inspecting: ours),
            case .dfuPackage(let reference) = try FirmwareInfo(
                inspecting: Fixtures.packageBuilder + "/nrfutil-gaps.zip")
        else {
            Issue.record("not read back as DFU packages")
            return
        }
        #expect(made.parts.map(\.binFile) == reference.parts.map(\.binFile))
        #expect(made.parts.map(\.size) == reference.parts.map(\.size))
        #expect(made.parts.map(\.initPacket) == reference.parts.map(\.initPacket))
    }

    @Test("a signed package verifies with the public half of its key")
    func signed() throws {
        var options = FirmwarePackage.SecureOptions()
        options.hardwareVersion = "52"
        options.softDeviceRequirements = ["0x0101"]
        options.application = try ImageFile(contentsOfFile: Fixtures.packageBuilder + "/app-raw.bin")
        options.applicationVersion = "1"
        let package = try FirmwarePackage(
            secure: options, signingKey: try SigningKey(contentsOfFile: Fixtures.signingKey))
        #expect(package.warnings.isEmpty)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "signed.zip",
            try package.zipArchive(
                timestamp: FirmwarePackage.Timestamp(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 6)))
        var check = FirmwareOptions()
        check.verificationKeyFile = Fixtures.packages + "/nrfutil-test-key.pub.pem"
        let info = try FirmwareInfo(inspecting: path, options: check)
        #expect(info.verificationFailure == nil)
    }

    @Test("a legacy package with nrfutil's options refused as a usage error (64)")
    func legacyRefusal() throws {
        var options = FirmwarePackage.LegacyOptions()
        options.application = try ImageFile(contentsOfFile: Fixtures.packageBuilder + "/app-raw.bin")
        options.dfuVersion = "0.7"
        #expect {
            _ = try FirmwarePackage(legacy: options)
        } throws: { error in
            (error as? UpdateError)?.exitStatus == .usage
        }
        options.dfuVersion = "0.6"
        let package = try FirmwarePackage(legacy: options)
        #expect(package.imageNames.count == 1)
    }
}

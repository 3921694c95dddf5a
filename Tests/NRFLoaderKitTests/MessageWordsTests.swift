import Foundation
import NRFLoaderKit
import TestSupport
import Testing

/// Messages name the library's own settings, never a command-line flag; their typed form lets a front end say them in
/// its own words.
@Suite struct MessageWordsTests {
    static func image() throws -> ImageFile {
        try ImageFile(contentsOfFile: Fixtures.packageBuilder + "/app-raw.bin")
    }

    @Test("a package option nrfutil refuses is a typed problem, said with the options' property names")
    func packagingProblem() throws {
        var options = FirmwarePackage.SecureOptions()
        options.application = try Self.image()
        options.applicationVersion = "1"
        options.softDeviceRequirements = ["0x0101"]
        #expect {
            _ = try FirmwarePackage(secure: options)
        } throws: { error in
            guard let error = error as? UpdateError else { return false }
            return error.message == "hardwareVersion is required" && error.exitStatus == .usage
                && error.packagingProblem?.kind == .missing([.hardwareVersion], with: [])
                && error.packagingProblem?.description == error.message
        }
        options.hardwareVersion = "09"
        #expect {
            _ = try FirmwarePackage(secure: options)
        } throws: { error in
            (error as? UpdateError)?.packagingProblem?.kind
                == .invalidNumber(
                    .hardwareVersion, reason: "09 is not a valid integer (0x for hexadecimal, a leading 0 for octal)")
        }
        options.hardwareVersion = "52"
        options.softDeviceIDs = ["0x0101", "0x0124"]
        options.softDevice = try Self.image()
        #expect {
            _ = try FirmwarePackage(secure: options)
        } throws: { error in
            (error as? UpdateError)?.message
                == "softDeviceIDs: give one comma-separated list, such as 0xXXXX,0xYYYY, not several"
        }
    }

    @Test("nrfutil's warnings come typed too, and their text names the library's options")
    func warnings() throws {
        var options = FirmwarePackage.SecureOptions()
        options.application = try Self.image()
        options.applicationVersion = "1"
        options.applicationVersionString = "1.2.3"
        options.hardwareVersion = "52"
        options.softDeviceRequirements = ["0x0101"]
        let package = try FirmwarePackage(secure: options)
        #expect(package.warningKinds == [.bothApplicationVersions, .unsigned])
        #expect(
            package.warnings == [
                "warning: both applicationVersionString and applicationVersion given; only the string is used",
                "warning: no signingKey: the package is unsigned, for open bootloaders only",
            ])
    }

    @Test("a settings page option nrfutil refuses is a typed problem")
    func settingsProblem() throws {
        var options = BootloaderSettingsPage.Options(family: .nrf52, bootloaderVersion: 1, settingsVersion: 2)
        options.includesBackup = false
        options.backupAddress = 0x7_0000
        #expect {
            _ = try BootloaderSettingsPage(generating: options)
        } throws: { error in
            guard let error = error as? UpdateError else { return false }
            return error.packagingProblem?.kind == .backupAddressWithoutBackup
                && error.message == "backupAddress cannot be given without a backup page (includesBackup)"
        }
    }

    @Test("a setting that would help is a typed mention, which a front end can say in its own words")
    func mentions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "far.hex",
            HexRecords.file([
                HexRecords.linear(0x0002), HexRecords.data(0x6000, [1, 2, 3, 4]), HexRecords.linear(0x1000),
                HexRecords.data(0x1014, [5, 6, 7, 8]), HexRecords.endOfFile,
            ]))
        #expect {
            _ = try ImageConversion.binary(fromHexFile: path, output: { MemoryOutput() })
        } throws: { error in
            guard let error = error as? UpdateError else { return false }
            let tail = "would make a binary image over 64 MiB; "
            return error.mentions == [.cropOrDropNordicRegions(end: 0x1000_0000)]
                && error.message.hasSuffix(
                    tail + "crop it at 0x10000000 (BinaryImageOptions.end) or drop the MBR and UICR regions "
                        + "(BinaryImageOptions.followsNordicTools)")
                && error.message(naming: { _ in "use the window" }).hasSuffix(tail + "use the window")
                && error.message(naming: \.description) == error.message
        }
    }

    @Test("an error that names no setting renders the same either way")
    func noMentions() {
        let error = UpdateError("'out.bin': write failed: no space left on device", exitStatus: .ioError)
        #expect(error.mentions.isEmpty && error.packagingProblem == nil)
        #expect(error.message(naming: { _ in "x" }) == error.message)
    }
}

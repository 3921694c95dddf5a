import Foundation
import NRFLoaderKit
import Testing

/// nrfutil's bootloader settings pages, through the public API alone.
@Suite struct BootloaderSettingsPageTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var options: @Sendable () throws -> BootloaderSettingsPage.Options
        var description: String { name }
    }

    static func image(_ name: String) throws -> ImageFile {
        try ImageFile(contentsOfFile: Fixtures.packageBuilder + "/" + name)
    }

    /// The cases of `Tests/Data/settings/make.sh`.
    static let cases: [Case] = [
        Case(name: "nrf52-v2-app-sd") {
            var options = BootloaderSettingsPage.Options(family: .nrf52, bootloaderVersion: 2, settingsVersion: 2)
            options.application = try image("app-gaps-mbr-uicr.hex")
            options.applicationVersion = 3
            options.softDevice = try image("s132-like-sd.hex")
            return options
        },
        Case(name: "nrf52840-v2-sha-nobackup") {
            var options = BootloaderSettingsPage.Options(family: .nrf52840, bootloaderVersion: 7, settingsVersion: 2)
            options.application = try image("app-gaps-mbr-uicr.hex")
            options.applicationVersion = try NrfutilInteger.parse("0x10", name: "application version")
            options.applicationBootValidation = .generatedSHA256
            options.softDevice = try image("plain-sd.hex")
            options.softDeviceBootValidation = BootValidation.none
            options.includesBackup = false
            return options
        },
        Case(name: "nrf51-v1-bin") {
            var options = BootloaderSettingsPage.Options(family: .nrf51, bootloaderVersion: 1, settingsVersion: 1)
            options.application = try image("app-raw.bin")
            options.applicationVersion = try NrfutilInteger.parseVersionString("1.2.3", name: "version")
            return options
        },
        Case(name: "nrf52qfab-v1-empty") {
            var options = BootloaderSettingsPage.Options(family: .nrf52QFAB, bootloaderVersion: 4, settingsVersion: 1)
            options.startAddress = 0x3E000
            return options
        },
        Case(name: "nrf52810-v2-app") {
            var options = BootloaderSettingsPage.Options(family: .nrf52810, bootloaderVersion: 1, settingsVersion: 2)
            options.application = try image("app-raw.bin")
            options.applicationVersion = 1
            return options
        },
    ]

    @Test("a generated page is nrfutil 6.1.7's, byte for byte", arguments: cases)
    func generate(_ example: Case) throws {
        let page = try BootloaderSettingsPage(generating: try example.options())
        #expect(page.intelHexText == (try Fixtures.text(Fixtures.settings + "/" + example.name + ".hex")))
    }

    @Test("a page nrfutil wrote reads back as nrfutil displays it", arguments: cases)
    func display(_ example: Case) throws {
        let relative = "Tests/Data/settings/\(example.name).hex"
        let expected = try Fixtures.text(Fixtures.settings + "/" + example.name + ".display.txt")
        guard !expected.hasSuffix("exit status 2\n") else {
            #expect {
                _ = try BootloaderSettingsPage.read(fromHexFile: Fixtures.root + "/" + relative)
            } throws: { error in
                (error as? UpdateError)?.exitStatus == .dataError
            }
            return
        }
        let read = try BootloaderSettingsPage.read(fromHexFile: Fixtures.root + "/" + relative)
        #expect((read.note.map { $0 + "\n" } ?? "") + read.page.displayText(file: relative) + "\n" == expected)
    }

    @Test("an ECDSA boot validation needs a signing key, and signs with one")
    func signed() throws {
        var options = BootloaderSettingsPage.Options(family: .nrf52, bootloaderVersion: 1, settingsVersion: 2)
        options.application = try Self.image("app-raw.bin")
        options.applicationVersion = 1
        options.applicationBootValidation = .ecdsaP256SHA256
        #expect {
            _ = try BootloaderSettingsPage(generating: options)
        } throws: { error in
            (error as? UpdateError)?.exitStatus == .usage
        }
        let page = try BootloaderSettingsPage(
            generating: options, signingKey: try SigningKey(contentsOfFile: Fixtures.signingKey))
        #expect(page.intelHexText.hasPrefix(":02000004"))
    }

    @Test("nrfutil's numbers: hexadecimal, octal and decimal; anything else is a usage error naming it")
    func numbers() throws {
        #expect(try NrfutilInteger.parse("0x3E000", name: "address") == 0x3E000)
        #expect(try NrfutilInteger.parse("010", name: "address") == 8)
        #expect(try NrfutilInteger.parse("10", name: "address") == 10)
        #expect(try NrfutilInteger.parseVersionString("1.2.3", name: "version") == 10203)
        #expect {
            _ = try NrfutilInteger.parse("ten", name: "the address")
        } throws: { error in
            let error = error as? UpdateError
            return error?.exitStatus == .usage && error?.message.contains("the address") == true
        }
    }
}

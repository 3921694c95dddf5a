import BootloaderSettings
import PackageBuilder
import TestSupport
import Testing

/// The settings page in-process: generated with nrfutil's rules, written as HEX and read back the way
/// `settings display` reads it (the command itself is compared with nrfutil's pages in CLITests).
@Suite struct BootloaderSettingsPageTests {
    static let application = InputImage(path: "app.bin", contents: [1, 2, 3, 4, 5, 6, 7, 8, 9])

    static func options(
        _ family: BootloaderSettingsPage.Family = .nrf52, settingsVersion: UInt32 = 2
    ) -> BootloaderSettingsPage.Options {
        var options = BootloaderSettingsPage.Options(
            family: family, bootloaderVersion: 7, settingsVersion: settingsVersion)
        options.application = application
        options.applicationVersion = 3
        return options
    }

    @Test("a generated page, written as HEX, reads back with the same fields at the family's address")
    func roundTrip() throws {
        let page = try BootloaderSettingsPage(generating: Self.options(), signer: nil)
        #expect(page.address == 0x0007_F000)
        #expect(page.applicationSize == 12)  // padded with 0xFF to a multiple of 4
        #expect(page.bank0Code == 1)
        #expect(page.appBootValidationType == 1)  // version 2 validates the generated CRC by default
        let (read, note) = try BootloaderSettingsPage.read(Array(page.hexText.utf8), path: "page.hex")
        #expect(note == nil)
        // As nrfutil prints it, the start address is the file's lowest: the backup page's, a page below.
        #expect(read.family == .nrf52 && read.address == page.address - 0x1000)
        #expect(read.crc == page.crc && read.bootValidationCRC == page.bootValidationCRC)
        #expect(read.settingsVersion == 2 && read.applicationVersion == 3 && read.bootloaderVersion == 7)
        #expect(read.applicationSize == page.applicationSize && read.applicationCRC == page.applicationCRC)
        let text = page.description(file: "page.hex")
        #expect(text.contains("* Start Address:            0x0007F000"))
        #expect(text.contains("* App Boot Validation Type: 0x00000001 (1)"))
    }

    @Test("the backup copy sits a page below unless --no-backup", arguments: BootloaderSettingsPage.Family.allCases)
    func backup(family: BootloaderSettingsPage.Family) throws {
        var options = Self.options(family)
        let page = try BootloaderSettingsPage(generating: options, signer: nil)
        let base = family.settingsAddress
        #expect(page.address == base)
        #expect(page.memory[base - 0x1000] == page.memory[base] && page.memory[base - 0x1000] != nil)
        options.noBackup = true
        let alone = try BootloaderSettingsPage(generating: options, signer: nil)
        #expect(alone.memory.keys.allSatisfy { $0 >= base })
        let read = try BootloaderSettingsPage.read(Array(alone.hexText.utf8), path: "alone.hex").page
        #expect(read.family == family && read.address == base && read.crc == alone.crc)
    }

    @Test("version 1 pages have no boot validation; a changed byte makes the page unreadable")
    func versionOne() throws {
        let page = try BootloaderSettingsPage(generating: Self.options(settingsVersion: 1), signer: nil)
        #expect(page.appBootValidationType == 0 && page.bootValidationCRC == 0)
        #expect(try BootloaderSettingsPage.read(Array(page.hexText.utf8), path: "v1.hex").page.settingsVersion == 1)

        var memory = page.memory.filter { $0.key >= page.address }
        memory[page.address + 0x08] = 0x55  // the application version, under the page CRC
        let records =
            memory.keys.sorted().map { address in
                [
                    HexRecords.linear(UInt16(address >> 16)),
                    HexRecords.data(UInt16(address & 0xFFFF), [memory[address] ?? 0]),
                ]
            }.flatMap { $0 } + [HexRecords.endOfFile]
        #expect {
            try BootloaderSettingsPage.read(HexRecords.file(records), path: "changed.hex")
        } throws: { error in
            guard case .usage(let reason) = error as? PackageBuilderError else { return false }
            return reason.hasPrefix("changed.hex: failed to parse the settings page: ")
        }
    }

    @Test("option combinations nrfutil refuses are usage errors")
    func refused() {
        var unknownVersion = Self.options()
        unknownVersion.settingsVersion = 3
        var bothBackups = Self.options()
        bothBackups.noBackup = true
        bothBackups.backupAddress = 0x7_0000
        var noVersion = Self.options()
        noVersion.applicationVersion = nil
        var validationInVersionOne = Self.options(settingsVersion: 1)
        validationInVersionOne.appBootValidation = .validateSHA256
        var keyless = Self.options()
        keyless.appBootValidation = .validateECDSAP256SHA256
        let refusals: [(BootloaderSettingsPage.Options, PackageOptionProblem)] = [
            (unknownVersion, .unknownSettingsVersion(3)), (bothBackups, .backupAddressWithoutBackup),
            (noVersion, .missing([.applicationVersion], with: [.application])),
            (validationInVersionOne, .bootValidationNeedsSettingsVersion2),
            (keyless, .keyRequiredForSignatureValidation),
        ]
        for (options, problem) in refusals {
            #expect(throws: PackageBuilderError.options(problem)) {
                try BootloaderSettingsPage(generating: options, signer: nil)
            }
            #expect(PackageBuilderError.options(problem).isUsage)
        }
        #expect(
            "\(PackageBuilderError.options(.missing([.applicationVersion], with: [.application])))"
                == "applicationVersion is required with application")
    }
}

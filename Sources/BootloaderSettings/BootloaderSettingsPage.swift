import Checksums
package import DFUPackage
import HexConverter
package import PackageBuilder

/// The bootloader settings page nrfutil 6.1.7 `settings generate` writes for production programming, and its
/// `settings display` reading of one.
///
/// Layout (`nrf_dfu_types.h`, all little-endian): CRC-32 of bytes 4..0x5B at 0, settings version at 4, application
/// version at 8, bootloader version at 0xC, bank layout 0x10, current bank 0x14, bank 0 size 0x18, bank 0 CRC-32 0x1C,
/// bank 0 code 0x20 (1 with an application), SoftDevice size 0x34. Version 1 is 92 bytes; version 2 is 803 bytes
/// (padded with one 0xFF) and adds the boot validation: CRC-32 of 0x260..0x322 at 0x25C, the SoftDevice's type at
/// 0x260 and its bytes at 0x261, the application's type at 0x2A1 and its bytes at 0x2A2. The backup page, one page
/// below unless given, is a copy.
package struct BootloaderSettingsPage: Sendable, Equatable {
    /// The device families nrfutil knows, with their settings page addresses.
    package enum Family: String, Sendable, CaseIterable {
        case nrf51 = "NRF51"
        case nrf52 = "NRF52"
        case nrf52QFAB = "NRF52QFAB"
        case nrf52810 = "NRF52810"
        case nrf52840 = "NRF52840"

        /// The settings page's default address (the last flash page).
        package var settingsAddress: UInt32 {
            switch self {
            case .nrf51: 0x0003_FC00
            case .nrf52: 0x0007_F000
            case .nrf52QFAB: 0x0003_F000
            case .nrf52810: 0x0002_F000
            case .nrf52840: 0x000F_F000
            }
        }

        /// The name nrfutil prints as "Family".
        package var displayName: String {
            switch self {
            case .nrf51: "nRF51"
            case .nrf52: "nRF52"
            case .nrf52QFAB: "nRF52QFAB"
            case .nrf52810: "NRF52810"
            case .nrf52840: "NRF52840"
            }
        }
    }

    package var family: Family
    package var address: UInt32
    package var crc: UInt32
    package var settingsVersion: UInt32
    package var applicationVersion: UInt32
    package var bootloaderVersion: UInt32
    package var bankLayout: UInt32 = 0
    package var currentBank: UInt32 = 0
    package var applicationSize: UInt32
    package var applicationCRC: UInt32
    package var bank0Code: UInt32
    package var softdeviceSize: UInt32
    package var bootValidationCRC: UInt32
    package var sdBootValidationType: Int8
    package var appBootValidationType: Int8
    /// The page's memory (settings and backup), address to byte.
    package var memory: [UInt32: UInt8]

    /// The options of `settings generate`.
    package struct Options: Sendable {
        package var family: Family
        package var application: InputImage?
        package var applicationVersion: UInt32?
        package var bootloaderVersion: UInt32
        package var settingsVersion: UInt32
        package var startAddress: UInt32?
        package var noBackup = false
        package var backupAddress: UInt32?
        package var appBootValidation: ValidationType?
        package var sdBootValidation: ValidationType?
        package var softdevice: InputImage?

        package init(family: Family, bootloaderVersion: UInt32, settingsVersion: UInt32) {
            self.family = family
            self.bootloaderVersion = bootloaderVersion
            self.settingsVersion = settingsVersion
        }
    }

    /// Generates the page with nrfutil's rules.
    ///
    /// - Parameters:
    ///   - options: The options.
    ///   - signer: The signing key, for `VALIDATE_ECDSA_P256_SHA256`.
    /// - Throws: ``PackageBuilderError``.
    package init(generating options: Options, signer: (any InitPacketSigning)?) throws(PackageBuilderError) {
        guard options.settingsVersion == 1 || options.settingsVersion == 2 else {
            throw .options(.unknownSettingsVersion(options.settingsVersion))
        }
        if options.noBackup && options.backupAddress != nil {
            throw .options(.backupAddressWithoutBackup)
        }
        if options.settingsVersion == 1 && (options.appBootValidation != nil || options.sdBootValidation != nil) {
            throw .options(.bootValidationNeedsSettingsVersion2)
        }
        let needsKey =
            options.appBootValidation == .validateECDSAP256SHA256
            || options.sdBootValidation == .validateECDSAP256SHA256
        if needsKey && signer == nil {
            throw .options(.keyRequiredForSignatureValidation)
        }
        if options.appBootValidation != nil && options.application == nil {
            throw .options(.needs(.appBootValidation, .application))
        }
        if options.sdBootValidation != nil && options.softdevice == nil {
            throw .options(.needs(.sdBootValidation, .softdevice))
        }
        if options.application != nil && options.applicationVersion == nil {
            throw .options(.missing([.applicationVersion], with: [.application]))
        }
        let defaultValidation: ValidationType? = options.settingsVersion == 2 ? .validateGeneratedCRC : nil
        family = options.family
        address = options.startAddress ?? options.family.settingsAddress
        settingsVersion = options.settingsVersion
        applicationVersion = options.applicationVersion ?? 0
        bootloaderVersion = options.bootloaderVersion
        var appValidationBytes: [UInt8] = []
        var sdValidationBytes: [UInt8] = []
        appBootValidationType = 0
        sdBootValidationType = 0
        if let application = options.application {
            let bin = try NordicBinary.image(application.contents, path: application.path)
            guard let size = UInt32(exactly: bin.count) else { throw .packageTooLarge }
            applicationSize = size
            applicationCRC = CRC32.checksum(bin)
            bank0Code = 1
            (appBootValidationType, appValidationBytes) = Self.validation(
                options.appBootValidation ?? defaultValidation, of: bin, crc: applicationCRC, signer: signer)
        } else {
            applicationSize = 0
            applicationCRC = 0
            bank0Code = 0
        }
        if let softdevice = options.softdevice {
            guard !softdevice.path.hasSuffix(".bin") else {
                throw .options(.softDeviceNotHex)
            }
            let bin = try NordicBinary.image(softdevice.contents, path: softdevice.path)
            guard let size = UInt32(exactly: bin.count) else { throw .packageTooLarge }
            softdeviceSize = size
            (sdBootValidationType, sdValidationBytes) = Self.validation(
                options.sdBootValidation ?? defaultValidation, of: bin, crc: CRC32.checksum(bin), signer: signer)
        } else {
            softdeviceSize = 0
        }

        let count = settingsVersion == 1 ? 92 : 803
        let padded = (count + 3) & ~3
        var page = [UInt8](repeating: 0, count: count) + [UInt8](repeating: 0xFF, count: padded - count)
        func put(_ offset: Int, _ value: UInt32) {
            for index in 0..<4 { page[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        }
        put(0x04, settingsVersion)
        put(0x08, applicationVersion)
        put(0x0C, bootloaderVersion)
        put(0x10, bankLayout)
        put(0x14, currentBank)
        put(0x18, applicationSize)
        put(0x1C, applicationCRC)
        put(0x20, bank0Code)
        put(0x34, softdeviceSize)
        bootValidationCRC = 0
        if settingsVersion == 2 {
            page[0x260] = UInt8(bitPattern: sdBootValidationType)
            page.replaceSubrange(0x261..<0x261 + sdValidationBytes.count, with: sdValidationBytes)
            page[0x2A1] = UInt8(bitPattern: appBootValidationType)
            page.replaceSubrange(0x2A2..<0x2A2 + appValidationBytes.count, with: appValidationBytes)
            bootValidationCRC = CRC32.checksum(Array(page[0x260...0x322]))
            put(0x25C, bootValidationCRC)
        }
        crc = CRC32.checksum(Array(page[0x04..<0x5C]))
        put(0x00, crc)
        var memory: [UInt32: UInt8] = [:]
        for (offset, byte) in page.enumerated() { memory[address + UInt32(offset)] = byte }
        if !options.noBackup {
            let backup = options.backupAddress ?? address &- 0x1000
            for (offset, byte) in page.enumerated() { memory[backup &+ UInt32(offset)] = byte }
        }
        self.memory = memory
    }

    private static func validation(
        _ type: ValidationType?, of bin: [UInt8], crc: UInt32, signer: (any InitPacketSigning)?
    ) -> (Int8, [UInt8]) {
        switch type {
        case .validateGeneratedCRC: (1, (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) })
        case .validateSHA256: (2, SHA256.hash(bin))
        case .validateECDSAP256SHA256: (3, signer?.nordicSignature(over: bin) ?? [])
        case .noValidation, nil: (0, [])
        }
    }

    /// The page as Intel HEX, as nrfutil writes it.
    package var hexText: String { IntelHexRecords.text(memory) }

    /// Reads a settings page the way `settings display` does: tries each family's address in nrfutil's order
    /// (nRF51, nRF52, nRF52 QFAB, nRF52810, nRF52840) and takes the first whose fields are all present, whose
    /// version is 1 or 2 and whose CRC matches (bytes missing from the CRC range count as 0xFF, Python `intelhex`'s
    /// padding).
    ///
    /// - Parameters:
    ///   - text: The HEX file.
    ///   - path: Its name, for errors.
    /// - Returns: The page, and the line nrfutil prints when the nRF52 address does not hold a page (it prints that
    ///   probe's failure before going on), or nil.
    /// - Throws: ``PackageBuilderError/badHex(_:)``, or `usage` with the last probe's failure when none fits.
    package static func read(_ text: [UInt8], path: String) throws(PackageBuilderError) -> (
        page: BootloaderSettingsPage, note: String?
    ) {
        let hex: HexImage
        do {
            hex = try IntelHexParser.parse(text, source: path)
        } catch {
            throw .badHex(error)
        }
        var memory: [UInt32: UInt8] = [:]
        if let lowest = hex.lowestAddress {
            let flat = hex.binary(fill: 0xFF)
            for region in hex.regions {
                for address in region.start...region.end { memory[address] = flat[Int(address - lowest)] }
            }
        }
        var note: String?
        var failure = ""
        for family in Family.allCases {
            switch probe(memory, family: family, lowest: hex.lowestAddress ?? 0) {
            case .success(let page): return (page, note)
            case .failure(let message):
                failure = message.text
                if family == .nrf52 { note = failure }
            }
        }
        throw .usage("\(path): failed to parse the settings page: \(failure)")
    }

    private struct ProbeFailure: Error {
        var text: String
    }

    private static func probe(_ memory: [UInt32: UInt8], family: Family, lowest: UInt32) -> Result<
        BootloaderSettingsPage, ProbeFailure
    > {
        let base = family.settingsAddress
        func word(_ at: UInt32) throws(ProbeFailure) -> UInt32 {
            var value: UInt32 = 0
            for index in 0..<4 {
                guard let byte = memory[at + UInt32(index)] else {
                    throw ProbeFailure(
                        text:
                            "Bad access at 0x\(String(at, radix: 16, uppercase: true)): not enough data to read 4 contiguous bytes"
                    )
                }
                value |= UInt32(byte) << (8 * UInt32(index))
            }
            return value
        }
        func byte(_ at: UInt32) throws(ProbeFailure) -> Int8 {
            guard let value = memory[at] else {
                throw ProbeFailure(
                    text:
                        "Bad access at 0x\(String(at, radix: 16, uppercase: true)): not enough data to read 1 contiguous bytes"
                )
            }
            return Int8(bitPattern: value)
        }
        do throws(ProbeFailure) {
            let stored = try word(base)
            let version = try word(base + 4)
            guard version == 1 || version == 2 else {
                throw ProbeFailure(text: "Unknown Bootloader DFU settings version: \(version)")
            }
            let computed = CRC32.checksum((base + 4..<base + 0x5C).map { memory[$0] ?? 0xFF })
            guard computed == stored else {
                throw ProbeFailure(
                    text:
                        "CRC32 mismtach: flash: 0x\(String(stored, radix: 16)) calculated: 0x\(String(computed, radix: 16))"
                )
            }
            var page = BootloaderSettingsPage(
                family: family, address: lowest, crc: stored, settingsVersion: version,
                applicationVersion: try word(base + 0x08), bootloaderVersion: try word(base + 0x0C),
                bankLayout: try word(base + 0x10), currentBank: try word(base + 0x14),
                applicationSize: try word(base + 0x18), applicationCRC: try word(base + 0x1C),
                bank0Code: try word(base + 0x20), softdeviceSize: 0, bootValidationCRC: 0, sdBootValidationType: 0,
                appBootValidationType: 0, memory: memory)
            if version == 2 {
                page.softdeviceSize = try word(base + 0x34)
                page.bootValidationCRC = try word(base + 0x25C)
                page.sdBootValidationType = try byte(base + 0x260)
                page.appBootValidationType = try byte(base + 0x2A1)
            }
            return .success(page)
        } catch {
            return .failure(error)
        }
    }

    private init(
        family: Family, address: UInt32, crc: UInt32, settingsVersion: UInt32, applicationVersion: UInt32,
        bootloaderVersion: UInt32, bankLayout: UInt32, currentBank: UInt32, applicationSize: UInt32,
        applicationCRC: UInt32, bank0Code: UInt32, softdeviceSize: UInt32, bootValidationCRC: UInt32,
        sdBootValidationType: Int8, appBootValidationType: Int8, memory: [UInt32: UInt8]
    ) {
        self.family = family
        self.address = address
        self.crc = crc
        self.settingsVersion = settingsVersion
        self.applicationVersion = applicationVersion
        self.bootloaderVersion = bootloaderVersion
        self.bankLayout = bankLayout
        self.currentBank = currentBank
        self.applicationSize = applicationSize
        self.applicationCRC = applicationCRC
        self.bank0Code = bank0Code
        self.softdeviceSize = softdeviceSize
        self.bootValidationCRC = bootValidationCRC
        self.sdBootValidationType = sdBootValidationType
        self.appBootValidationType = appBootValidationType
        self.memory = memory
    }

    /// nrfutil's text block (starts and ends with a newline).
    ///
    /// - Parameter file: The file name to show.
    /// - Returns: The text.
    package func description(file: String) -> String {
        func h(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }
        func typeText(_ value: Int8) -> String {
            // Python formats the signed byte, masked to 32 bits, with {:08X} and plain {}.
            "\(h(UInt32(bitPattern: Int32(value)))) (\(value))"
        }
        return """

            Bootloader DFU Settings:
            * File:                     \(file)
            * Family:                   \(family.displayName)
            * Start Address:            \(h(address))
            * CRC:                      \(h(crc))
            * Settings Version:         \(h(settingsVersion)) (\(settingsVersion))
            * App Version:              \(h(applicationVersion)) (\(applicationVersion))
            * Bootloader Version:       \(h(bootloaderVersion)) (\(bootloaderVersion))
            * Bank Layout:              \(h(bankLayout))
            * Current Bank:             \(h(currentBank))
            * Application Size:         \(h(applicationSize)) (\(applicationSize) bytes)
            * Application CRC:          \(h(applicationCRC))
            * Bank0 Bank Code:          \(h(bank0Code))
            * Softdevice Size:          \(h(softdeviceSize)) (\(softdeviceSize) bytes)
            * Boot Validation CRC:      \(h(bootValidationCRC))
            * SD Boot Validation Type:  \(typeText(sdBootValidationType))
            * App Boot Validation Type: \(typeText(appBootValidationType))

            """
    }
}

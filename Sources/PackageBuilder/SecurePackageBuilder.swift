import Checksums
package import DFUPackage

/// One firmware file given to the package command: its path as typed and its contents.
package struct InputImage: Sendable {
    /// The path as the user gave it (its last component names the package entries).
    package var path: String
    /// The file's bytes.
    package var contents: [UInt8]

    package init(path: String, contents: [UInt8]) {
        self.path = path
        self.contents = contents
    }
}

/// The options of nrfutil 6.1.7 `pkg generate` (the Zigbee ones left out), as given on the command line.
///
/// Integer options hold their text: nrfutil accepts `none` for several of them and parses the rest its own way
/// (``NordicInteger``). `SecurePackageBuilder.build(_:signer:)` applies nrfutil's rules in nrfutil's order, so
/// the first complaint is the one nrfutil would make.
package struct SecurePackageOptions: Sendable {
    package var application: InputImage?
    package var applicationVersion: String?
    package var applicationVersionString: String?
    package var bootloader: InputImage?
    package var bootloaderVersion: String?
    package var softdevice: InputImage?
    package var hwVersion: String?
    /// Every SoftDevice requirement list given (nrfutil takes one comma-separated list and refuses the option twice).
    package var sdReq: [String] = []
    /// Every list of new SoftDevice ids given.
    package var sdId: [String] = []
    package var debugMode = false
    package var appBootValidation: ValidationType?
    package var sdBootValidation: ValidationType?
    package var externalApp = false

    package init() {}
}

/// What was built: the zip entries in the order they are written, and a warning for each thing nrfutil warns about.
package struct BuiltPackage: Sendable {
    /// Entry names and contents, `manifest.json` last.
    package var entries: [(name: String, bytes: [UInt8])]
    /// nrfutil's warnings that apply (debug mode, no key, both version options).
    package var warnings: [PackageWarning]

    /// The zip archive of ``entries``.
    ///
    /// - Parameters:
    ///   - year: The local time recorded for every entry: year,
    ///   - month: month (1-12),
    ///   - day: day,
    ///   - hour: hour,
    ///   - minute: minute,
    ///   - second: second.
    /// - Returns: The archive's bytes.
    /// - Throws: `packageTooLarge` past the classic zip limits.
    package func archive(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
        throws(PackageBuilderError) -> [UInt8]
    {
        try ZipWriter.archive(
            entries,
            timestamp: ZipWriter.Timestamp(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }
}

/// Builds Secure DFU packages as nrfutil 6.1.7 `pkg generate` does.
package enum SecurePackageBuilder {
    /// nrfutil's `Package.DEFAULT_*` values, used in debug mode for what is not given.
    static let defaultVersion: UInt32 = 0xFFFF_FFFF
    static let defaultSdReq: UInt64 = 0xFFFE

    private struct Firmware {
        var kind: FirmwareType
        var binName: String
        var bytes: [UInt8]
        /// For SoftDevice with bootloader: the SoftDevice part's size (the rest is the bootloader).
        var softdeviceSize: Int?
        var fwVersion: UInt32
        var sdReq: [UInt64]
        var bootValidation: [ValidationType]
    }

    /// Checks the options with nrfutil's rules and builds the package.
    ///
    /// - Parameters:
    ///   - options: The command-line options.
    ///   - signer: The signing key; nil for an unsigned package.
    /// - Returns: The entries and warnings.
    /// - Throws: ``PackageBuilderError``: `options` for what nrfutil refuses, the others for bad images.
    package static func build(_ options: SecurePackageOptions, signer: (any InitPacketSigning)?)
        throws(PackageBuilderError) -> BuiltPackage
    {
        var warnings: [PackageWarning] = []
        let application = options.application
        let bootloader = options.bootloader
        let softdevice = options.softdevice
        if bootloader != nil && application != nil && softdevice == nil {
            throw .options(.bootloaderWithApplicationNeedsSoftDevice)
        }
        guard application != nil || bootloader != nil || softdevice != nil else {
            throw .options(.noImage)
        }
        var applicationVersion: UInt32?
        if let text = options.applicationVersionString, !text.isEmpty {
            applicationVersion = try number(.applicationVersionString) { () throws(NumberFault) in
                try NordicInteger.versionString(text)
            }
            if options.applicationVersion != nil { warnings.append(.bothApplicationVersions) }
        } else if let text = options.applicationVersion {
            applicationVersion = try optionalInteger(text, option: .applicationVersion).map(UInt32.init)
        }
        var bootloaderVersion = try options.bootloaderVersion.flatMap { text throws(PackageBuilderError) in
            try optionalInteger(text, option: .bootloaderVersion).map(UInt32.init)
        }
        var hwVersion = try options.hwVersion.flatMap { text throws(PackageBuilderError) in
            try optionalInteger(text, option: .hwVersion).map(UInt32.init)
        }
        guard options.sdReq.count <= 1 else { throw .options(.givenMoreThanOnce(.sdReq)) }
        guard options.sdId.count <= 1 else { throw .options(.givenMoreThanOnce(.sdId)) }
        var sdReqText = options.sdReq.first.flatMap { $0.lowercased() == "none" ? nil : $0 }
        let sdIdText = options.sdId.first.flatMap { $0.lowercased() == "none" ? nil : $0 }
        if applicationVersion != nil && application == nil {
            throw .options(.givenWithoutImage(.applicationVersion, image: .application))
        }
        if bootloaderVersion != nil && bootloader == nil {
            throw .options(.givenWithoutImage(.bootloaderVersion, image: .bootloader))
        }
        if options.debugMode {
            warnings.append(.debugMode)
            applicationVersion = applicationVersion ?? defaultVersion
            bootloaderVersion = bootloaderVersion ?? defaultVersion
            hwVersion = hwVersion ?? defaultVersion
            sdReqText = sdReqText ?? String(defaultSdReq)
        }
        guard let hwVersion else { throw .options(.missing([.hwVersion], with: [])) }
        if sdReqText == nil && !options.externalApp { throw .options(.missing([.sdReq], with: [])) }
        if application != nil && applicationVersion == nil {
            throw .options(.missing([.applicationVersion, .applicationVersionString], with: [.application]))
        }
        if bootloader != nil && bootloaderVersion == nil {
            throw .options(.missing([.bootloaderVersion], with: [.bootloader]))
        }
        if application != nil && softdevice != nil && sdIdText == nil {
            throw .options(.missing([.sdId], with: [.softdevice, .application]))
        }
        if application == nil && options.externalApp { throw .options(.needs(.externalApp, .application)) }
        if application != nil && (softdevice != nil || bootloader != nil) && options.externalApp {
            throw .options(.externalApplicationWithOtherImages)
        }
        var sdReq =
            try sdReqText.map { text throws(PackageBuilderError) in
                try number(.sdReq) { () throws(NumberFault) in try NordicInteger.parseList(text, limit: 0xFFFF_FFFF) }
            } ?? []
        var sdId = sdReq
        if let sdIdText {
            sdId = try number(.sdId) { () throws(NumberFault) in
                try NordicInteger.parseList(sdIdText, limit: 0xFFFF_FFFF)
            }
            sdReq += PythonIntSet(sdId).subtracting(PythonIntSet(sdReq)).elements
        }
        if signer == nil { warnings.append(.unsigned) }

        var firmwares: [Firmware] = []
        if let application {
            firmwares.append(
                Firmware(
                    kind: options.externalApp ? .externalApplication : .application,
                    binName: NordicBinary.binName(for: application.path),
                    bytes: try NordicBinary.image(application.contents, path: application.path),
                    fwVersion: applicationVersion ?? defaultVersion, sdReq: sdId,
                    bootValidation: [options.appBootValidation ?? .validateGeneratedCRC]))
        }
        let sdValidation = options.sdBootValidation ?? .validateGeneratedCRC
        switch (softdevice, bootloader) {
        case (let softdevice?, let bootloader?):
            let sdBytes = try NordicBinary.image(softdevice.contents, path: softdevice.path)
            let blBytes = try NordicBinary.image(bootloader.contents, path: bootloader.path)
            firmwares.append(
                Firmware(
                    kind: .softdeviceBootloader, binName: "sd_bl.bin", bytes: sdBytes + blBytes,
                    softdeviceSize: sdBytes.count, fwVersion: bootloaderVersion ?? defaultVersion, sdReq: sdReq,
                    bootValidation: [sdValidation, .validateGeneratedCRC]))
        case (nil, let bootloader?):
            firmwares.append(
                Firmware(
                    kind: .bootloader, binName: NordicBinary.binName(for: bootloader.path),
                    bytes: try NordicBinary.image(bootloader.contents, path: bootloader.path),
                    fwVersion: bootloaderVersion ?? defaultVersion, sdReq: sdReq,
                    bootValidation: [.validateGeneratedCRC]))
        case (let softdevice?, nil):
            firmwares.append(
                Firmware(
                    kind: .softdevice, binName: NordicBinary.binName(for: softdevice.path),
                    bytes: try NordicBinary.image(softdevice.contents, path: softdevice.path),
                    fwVersion: defaultVersion, sdReq: sdReq, bootValidation: [sdValidation]))
        case (nil, nil): break
        }

        var entries: [(name: String, bytes: [UInt8])] = []
        var manifest: [String: PythonJSON] = [:]
        for firmware in firmwares {
            let datName = NordicBinary.datName(for: firmware.binName)
            for name in [firmware.binName, datName]
            where name == "manifest.json" || entries.contains(where: { $0.name == name }) {
                throw .duplicateEntryName(name)
            }
            let packet = try initPacket(
                for: firmware, hwVersion: hwVersion, isDebug: options.debugMode, signer: signer)
            entries.append((firmware.binName, firmware.bytes))
            entries.append((datName, packet))
            var member: [String: PythonJSON] = ["bin_file": .string(firmware.binName), "dat_file": .string(datName)]
            let key: String
            switch firmware.kind {
            case .application, .externalApplication: key = "application"
            case .softdevice: key = "softdevice"
            case .bootloader: key = "bootloader"
            case .softdeviceBootloader:
                key = "softdevice_bootloader"
                let sdSize = firmware.softdeviceSize ?? 0
                member["info_read_only_metadata"] = .object([
                    "bl_size": .integer(UInt64(firmware.bytes.count - sdSize)), "sd_size": .integer(UInt64(sdSize)),
                ])
            }
            manifest[key] = .object(member)
        }
        entries.append(("manifest.json", Array(PythonJSON.object(["manifest": .object(manifest)]).text.utf8)))
        return BuiltPackage(entries: entries, warnings: warnings)
    }

    /// An integer option that may be `none`.
    private static func optionalInteger(_ text: String, option: PackageOption) throws(PackageBuilderError) -> UInt64? {
        guard text.lowercased() != "none" else { return nil }
        return try number(option) { () throws(NumberFault) in try NordicInteger.parse(text) }
    }

    /// The `.dat` bytes for one image, field by field as `init_packet_pb.py` sets them.
    private static func initPacket(
        for firmware: Firmware, hwVersion: UInt32, isDebug: Bool, signer: (any InitPacketSigning)?
    ) throws(PackageBuilderError) -> [UInt8] {
        guard UInt32(exactly: firmware.bytes.count) != nil else { throw .packageTooLarge }
        let sdSize = firmware.softdeviceSize ?? (firmware.kind == .softdevice ? firmware.bytes.count : 0)
        let blSize: Int
        switch firmware.kind {
        case .bootloader: blSize = firmware.bytes.count
        case .softdeviceBootloader: blSize = firmware.bytes.count - sdSize
        default: blSize = 0
        }
        let appSize = firmware.kind == .application || firmware.kind == .externalApplication ? firmware.bytes.count : 0
        var bootValidation: [InitCommand.BootValidation] = []
        for type in firmware.bootValidation {
            guard type == .validateECDSAP256SHA256 else {
                bootValidation.append(InitCommand.BootValidation(type: type))
                continue
            }
            guard let signer else { throw .options(.signatureNeedsKey) }
            // nrfutil signs the SoftDevice alone for SoftDevice with bootloader, the whole image otherwise.
            let covered = firmware.kind == .softdeviceBootloader ? Array(firmware.bytes[..<sdSize]) : firmware.bytes
            bootValidation.append(InitCommand.BootValidation(type: type, bytes: signer.nordicSignature(over: covered)))
        }
        let sdReq = firmware.sdReq.isEmpty ? [defaultSdReq] : firmware.sdReq
        let command = InitCommand(
            fwVersion: firmware.fwVersion, hwVersion: hwVersion,
            sdReq: PythonIntSet(sdReq).elements.map { UInt32(truncatingIfNeeded: $0) }, type: firmware.kind,
            sdSize: UInt32(sdSize), blSize: UInt32(blSize), appSize: UInt32(appSize),
            hash: InitCommand.Hash(sha256Of: firmware.bytes), isDebug: isDebug, bootValidation: bootValidation)
        guard let signer else { return SecureInitPacket(initCommand: command).encoded() }
        let signature = signer.nordicSignature(over: command.encoded())
        return SecureInitPacket(
            initCommand: command, signature: SecureInitPacket.Signature(type: .ecdsaP256SHA256, bytes: signature)
        ).encoded()
    }
}

/// Runs `parse`, naming `option` in the usage error its refusal becomes.
func number<T>(_ option: PackageOption, _ parse: () throws(NumberFault) -> T) throws(PackageBuilderError) -> T {
    do { return try parse() } catch { throw .options(.invalidNumber(option, error)) }
}

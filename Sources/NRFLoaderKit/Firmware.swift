package import Catalog
import DFUPackage
import DFUSigning
import FoundationEssentials
package import MCUbootImage
import MCUbootPackage
package import SMP

/// Firmware to update a device with: an nrfutil package (`.zip`), an Intel HEX file, a binary image (`.bin`), a
/// signed MCUboot image, an nRF Connect SDK `dfu_application.zip`, or an entry of the embedded catalog: every input
/// `nrfloader upload` takes.
///
/// Loading reads and checks the input completely (zip structure, HEX records, MCUboot hash, signatures with
/// ``FirmwareOptions/verificationKeyFile``), so that a bad input fails before any device is touched. Whether the
/// firmware goes over nRF5 DFU or SMP follows from the input: MCUboot images and NCS packages go over SMP.
public struct Firmware: Sendable {
    package enum Content: Sendable {
        /// For nRF5 DFU: the input's bytes.
        case dfu(bytes: [UInt8])
        /// For nRF5 DFU: the catalog entry an id named (its init packets are made from its fields).
        case catalogEntry(CatalogEntry)
        /// For SMP: the checked MCUboot image or images, as the upload sends them, and the package's name when they
        /// come from an nRF Connect SDK package (whose events name each image) rather than a lone image.
        case mcuboot([SMPImageUpload], package: String?)
    }

    /// The input's name: its path, `<stdin>`, its catalog id, or the name given with the bytes.
    public let name: String
    /// How the firmware was asked for: a path, `-`, or a catalog id.
    package let source: String
    package let content: Content
    /// The options it was loaded with; init packets are made from them when the device's protocol is known.
    public let options: FirmwareOptions

    /// Whether the firmware is for MCUboot (sent over SMP) rather than for an nRF5 bootloader (sent over DFU).
    public var isMCUboot: Bool {
        if case .mcuboot = content { return true }
        return false
    }

    /// Loads firmware the way `nrfloader upload INPUT` does: `input` is a path, `-` for standard input, or the id of
    /// a catalog entry (``CatalogItem/all(options:)`` lists them).
    ///
    /// - Parameters:
    ///   - input: A path, `-`, or a catalog id.
    ///   - options: Init packet fields for inputs without init packets, keys, and the catalog to search.
    /// - Throws: ``UpdateError`` naming the input and the problem, before any device is touched.
    public init(_ input: String, options: FirmwareOptions = FirmwareOptions()) throws(UpdateError) {
        let isFile = input == "-" || FileManager.default.fileExists(atPath: input)
        if !isFile {
            let catalog = try UpdateError.wrapping { try FirmwareCatalogLoader.load(options) }
            guard let entry = catalog.entry(id: input) else {
                throw UpdateError(CatalogError.unknownID(input, known: catalog.entries.map(\.id)))
            }
            var content = Content.catalogEntry(entry)
            if let mcuboot = entry.mcuboot {
                let image = try UpdateError.wrapping {
                    try Self.checkedMCUbootImage(entry.image, file: entry.id, options)
                }
                let images = try UpdateError.wrapping {
                    try SMPImageUpload.images(of: image, number: options.mcubootImageNumber ?? mcuboot.imageNumber)
                }
                content = .mcuboot(images, package: nil)
            }
            try self.init(name: entry.id, source: input, content: content, options: options)
            return
        }
        let bytes = try UpdateError.wrapping { try InputFile(path: input).readAll() }
        try self.init(bytes: bytes, name: input == "-" ? "<stdin>" : input, source: input, options: options)
    }

    /// Firmware from bytes in memory, such as a download: the same formats as a file, told apart by their content
    /// and by `name`'s extension.
    ///
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - name: The name messages and events give the input, such as `app.zip`; its extension helps tell the
    ///     format.
    ///   - options: Init packet fields, keys.
    /// - Throws: ``UpdateError`` naming the input and the problem.
    public init(bytes: [UInt8], name: String, options: FirmwareOptions = FirmwareOptions()) throws(UpdateError) {
        try self.init(bytes: bytes, name: name, source: name, options: options)
    }

    private init(name: String, source: String, content: Content, options: FirmwareOptions) throws(UpdateError) {
        self.name = name
        self.source = source
        self.content = content
        self.options = options
        try checkImageNumber()
    }

    /// Refuses an image number for firmware that has none to choose: a package names its images' numbers, and
    /// nRF5 DFU has none.
    private func checkImageNumber() throws(UpdateError) {
        guard let number = options.mcubootImageNumber else { return }
        guard (0...15).contains(number) else {
            throw UpdateError(
                OptionError(message: "the MCUboot image number must be 0 to 15, not \(number)"), status: .usage)
        }
        switch content {
        case .mcuboot(_, package: nil): return
        case .mcuboot(_, package: .some):
            throw UpdateError(
                OptionError(
                    message: "'\(name)' is an nRF Connect SDK package, whose manifest gives each image its number; "
                        + "an image number applies to a lone MCUboot image"), status: .usage)
        case .dfu, .catalogEntry:
            throw UpdateError(
                OptionError(
                    message: "'\(name)' is nRF5 DFU firmware, which has no image numbers; an image number applies "
                        + "to a lone MCUboot image"), status: .usage)
        }
    }

    private init(bytes: [UInt8], name: String, source: String, options: FirmwareOptions) throws(UpdateError) {
        self.name = name
        self.source = source
        self.options = options
        let magic = MCUbootImageHeader.magic
        let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: magic >> (8 * $0)) }
        if MCUbootPackage.isPackage(bytes) {
            let package = try UpdateError.wrapping { try Self.checkedPackage(bytes, file: name, options) }
            content = .mcuboot(
                try UpdateError.wrapping { try SMPImageUpload.images(of: package) }, package: package.archive)
        } else if bytes.starts(with: littleEndian) {
            let image = try UpdateError.wrapping { try Self.checkedMCUbootImage(bytes, file: name, options) }
            content = .mcuboot(
                try UpdateError.wrapping {
                    try SMPImageUpload.images(of: image, number: options.mcubootImageNumber ?? 0)
                }, package: nil)
        } else {
            content = .dfu(bytes: bytes)
        }
        try checkImageNumber()
    }

    /// The images an nRF5 DFU update of this firmware sends, in order, with the size of each init packet: what a
    /// program shows before updating several devices with it.
    ///
    /// Init packets are generated as for a device that may speak either protocol (the ``FirmwareOptions`` choose),
    /// and signatures are checked with ``FirmwareOptions/verificationKeyFile``, so that this fails as an update
    /// would, before any device is touched.
    ///
    /// - Returns: The parts, as each device's ``UpdateEvent/begin(_:)`` names them.
    /// - Throws: ``UpdateError``: MCUboot firmware (``isMCUboot``), a bad key, init packet field or signature.
    public func dfuParts() throws(UpdateError) -> [UpdatePlan.Part] {
        let firmware = try UpdateError.wrapping { try dfuFirmware(defaultProtocol: nil) }
        return DFUSession.plan(firmware, input: name, target: "").parts
    }

    /// The signed MCUboot image of firmware that is one lone image (not an nRF Connect SDK package), or `nil`.
    public var mcubootImage: MCUbootImageInfo? {
        guard case .mcuboot(let images, package: nil) = content, let only = images.first,
            let image = try? MCUbootImage(bytes: only.bytes, file: only.name)
        else { return nil }
        return MCUbootImageInfo(image: image, key: nil)
    }

    /// The images as SMP sends them, and the package's name when they come from one, for a target named `target`
    /// that speaks nothing else.
    ///
    /// - Throws: For an nRF5 DFU input: the MCUboot parser's message for a file that is neither, else
    ///   the input's name and the target's, with a usage status.
    package func mcubootImages(for target: String) throws(UpdateError) -> (images: [SMPImageUpload], package: String?) {
        switch content {
        case .mcuboot(let images, let package): return (images, package)
        case .catalogEntry:
            throw UpdateError(
                DFUInputForSMPTarget(input: source, target: target), status: .usage, mentioning: [.simulatedDFUTargets])
        case .dfu(let bytes):
            try UpdateError.wrapping {
                // An nrfutil zip gets the package reader's own message; any other file the image parser's.
                if bytes.starts(with: [0x50, 0x4B]) { _ = try Self.checkedPackage(bytes, file: name, options) }
                _ = try Self.checkedMCUbootImage(bytes, file: name, options)
            }
            throw UpdateError(
                DFUInputForSMPTarget(input: source, target: target), status: .usage, mentioning: [.simulatedDFUTargets])
        }
    }

    private static func checkedMCUbootImage(_ bytes: [UInt8], file: String, _ options: FirmwareOptions) throws
        -> MCUbootImage
    {
        let image = try MCUbootImage(bytes: bytes, file: file)
        try image.verifiedHash()
        try options.mcubootVerificationKey()?.verify(image)
        return image
    }

    private static func checkedPackage(_ bytes: [UInt8], file: String, _ options: FirmwareOptions) throws
        -> MCUbootPackage
    {
        let key = try options.mcubootVerificationKey()
        return try MCUbootPackage(zip: bytes, archive: file) { (image) throws(MCUbootImageError) in
            try key?.verify(image)
        }
    }
}

/// How ``Firmware`` is loaded: the init packet fields `nrfloader upload` takes as `--dfu`, `--sd-req`,
/// `--hw-version`, `--fw-version`, `--dev-type`, `--dev-revision`, `--key` and `--verify-key`, and the catalog of
/// `--catalog`.
///
/// The init packet fields apply to inputs that have no init packets (`.hex`, `.bin`, catalog entries); packages
/// bring their own.
public struct FirmwareOptions: Sendable {
    /// An nRF5 DFU protocol.
    public enum DFUProtocol: String, Sendable, CaseIterable {
        /// Secure DFU (nRF5 SDK 12 and later).
        case secure
        /// Legacy DFU (nRF5 SDK 4 to 11).
        case legacy
    }

    /// The protocol of generated init packets; `nil` lets the transport choose (BlueZ: both, the device decides;
    /// serial: Secure).
    public var dfuProtocol: DFUProtocol?
    /// The SoftDevice firmware ids the image needs (`sd_req`).
    public var softDeviceRequirements: [UInt16]?
    /// Secure DFU: the bootloader's hardware version (default: the catalog's, else 52).
    public var hardwareVersion: UInt32?
    /// Secure DFU: `fw_version`; legacy DFU: the application version.
    public var firmwareVersion: UInt32?
    /// Legacy DFU: the device type (default 0xFFFF, any).
    public var deviceType: UInt16?
    /// Legacy DFU: the device revision (default 0xFFFF, any).
    public var deviceRevision: UInt16?
    /// A PEM private key (as `nrfutil keys generate` writes) that signs generated Secure DFU init packets.
    public var signingKeyFile: String?
    /// A public key file every init packet's signature, or every MCUboot image's signature, must verify with.
    public var verificationKeyFile: String?
    /// A catalog file whose entries are added to the embedded catalog (image paths relative to it).
    public var catalogFile: String?
    /// Whether entries of ``catalogFile`` replace embedded entries with the same id.
    public var catalogReplacesEmbedded = false
    /// The image number a lone signed MCUboot image is sent to (`mcumgr image upload -n`).
    ///
    /// 1 for the nRF5340's network core, 3 for its network core in MCUboot serial recovery; `nil`: 0, or the catalog
    /// entry's. An nRF Connect SDK package names each image's number itself, and nRF5 DFU has none; both are
    /// refused with it.
    public var mcubootImageNumber: Int?

    /// Options that generate nothing special: the catalog's or the protocol's defaults.
    public init() {}

    func generationOptions(defaultProtocol: DFUProtocol?) throws -> DFUGenerationOptions {
        var options = DFUGenerationOptions()
        options.protocolFamily = dfuProtocol ?? defaultProtocol
        options.softdeviceRequired = softDeviceRequirements
        options.hardwareVersion = hardwareVersion
        options.firmwareVersion = firmwareVersion
        options.deviceType = deviceType
        options.deviceRevision = deviceRevision
        if let key = signingKeyFile {
            let text = String(decoding: try InputFile(path: key).readAll(), as: UTF8.self)
            options.signer = try InitPacketSigner(pem: text, file: key)
        }
        return options
    }

    /// Checks the signature of every part the packages' first would send with ``verificationKeyFile``, before
    /// anything is sent.
    func verifySignatures(of packages: [DFUPackage], input: String) throws {
        guard let verifyKey = verificationKeyFile, let package = packages.first else { return }
        let verifier = try InitPacketVerifier(keyFile: try InputFile(path: verifyKey).readAll(), file: verifyKey)
        for part in package.parts {
            let check = try verifier.check(part, packageName: input)
            guard check == .valid else {
                throw FirmwareInputError.signature(
                    input: input, part: part.datFile,
                    problem: check == .unsigned
                        ? "is missing (the package is unsigned)" : "does not verify with '\(verifyKey)'")
            }
        }
    }

    package func mcubootVerificationKey() throws -> MCUbootVerificationKey? {
        guard let path = verificationKeyFile else { return nil }
        return try MCUbootVerificationKey(
            pem: String(decoding: try InputFile(path: path).readAll(), as: UTF8.self), file: path)
    }
}

/// Loads the embedded catalog and the one of ``FirmwareOptions/catalogFile``.
package enum FirmwareCatalogLoader {
    /// The embedded catalog, with the entries of `file` added (replacing those with the same id when `replacing`).
    package static func load(file: String?, replacing: Bool) throws -> FirmwareCatalog {
        var firmware = try FirmwareCatalog.embedded()
        guard let file else { return firmware }
        let text = try InputFile(path: file).readAll()
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        try firmware.add(catalog: text, source: file, replacing: replacing) { path in
            let imagePath = folder.appendingPathComponent(path).path
            do {
                return try InputFile(path: imagePath).readAll()
            } catch let error as FileFailure {
                throw ImageReadFailure(reason: error.reason)
            }
        }
        return firmware
    }

    static func load(_ options: FirmwareOptions) throws -> FirmwareCatalog {
        try load(file: options.catalogFile, replacing: options.catalogReplacesEmbedded)
    }

    private struct ImageReadFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}

/// The input is an nRF5 DFU image and the target speaks SMP only (`sim:smp`).
///
/// The message names the simulated targets: the one target that speaks SMP alone is `sim:smp`.
private struct DFUInputForSMPTarget: Error, CustomStringConvertible {
    var input: String
    var target: String

    var description: String {
        "'\(input)' is an nRF5 DFU image, and \(target) takes MCUboot images over SMP (for nRF5 DFU use a simulated "
            + "DFU device: sim, sim:legacy or sim:buttonless)"
    }
}

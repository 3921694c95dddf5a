public import Catalog
public import DFUController
public import DFUPackage
import HexConverter

/// An update ready to send: the parts of a package (read from a `.zip`, or generated for a `.hex`, `.bin` or
/// catalog image), and the same parts as the DFU engine takes them.
public struct FirmwareInput: Sendable {
    /// What the user gave.
    public enum Kind: Sendable, Equatable {
        case package
        case intelHex
        case binary
        case catalog(id: String)
    }

    /// The DFU protocol family of generated init packets.
    public enum ProtocolFamily: String, Sendable, CaseIterable {
        case secure
        case legacy
    }

    /// Init packet fields for bare images; `nil` fields come from the catalog entry, or are required.
    public struct GenerationOptions: Sendable {
        public var protocolFamily: ProtocolFamily = .secure
        /// Secure: `hw_version`.
        public var hardwareVersion: UInt32?
        /// Secure: `fw_version`; legacy: `application_version`.
        public var firmwareVersion: UInt32?
        /// Secure `sd_req` / legacy `softdevice_req`: the SoftDevice firmware ids the image runs on.
        public var softdeviceRequired: [UInt16]?
        /// Legacy: `device_type`.
        public var deviceType: UInt16?
        /// Legacy: `device_revision`.
        public var deviceRevision: UInt16?
        /// Secure: sign the init command with this key.
        public var signer: (any InitPacketSigning)?

        /// Creates options with nothing chosen.
        public init() {}
    }

    /// The name of the input in messages.
    public let name: String
    public let kind: Kind
    /// The parts with their init packets, in transfer order.
    public let package: DFUPackage
    /// The same parts for the DFU engine.
    public let firmware: DFUFirmware

    /// Reads a `.zip` package.
    ///
    /// - Parameters:
    ///   - zip: The archive's bytes.
    ///   - name: The input's name in messages.
    /// - Throws: ``FirmwareInputError``.
    public init(zip: [UInt8], name: String) throws(FirmwareInputError) {
        do {
            try self.init(package: try DFUPackage(zip: zip, name: name), name: name, kind: .package)
        } catch let error as DFUPackageError {
            throw .package(error)
        } catch let error as FirmwareInputError {
            throw error
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    /// Converts an Intel HEX file as Nordic's package tools do (MBR and UICR dropped, padded to 4 bytes) and
    /// generates its init packet.
    ///
    /// - Parameters:
    ///   - hex: The Intel HEX text.
    ///   - name: The input's name in messages.
    ///   - options: Init packet fields.
    /// - Throws: ``FirmwareInputError``, or ``HexConverter/HexConverterError`` for a malformed file.
    public init(hex: [UInt8], name: String, options: GenerationOptions) throws {
        let image = try IntelHexParser.parse(hex, source: name, window: .nordic)
        guard !image.isEmpty else { throw FirmwareInputError.emptyImage(input: name) }
        try self.init(image: image.binary(alignment: 4), name: name, kind: .intelHex, entry: nil, options: options)
    }

    /// Takes a binary application image and generates its init packet.
    ///
    /// - Parameters:
    ///   - binary: The image.
    ///   - name: The input's name in messages.
    ///   - options: Init packet fields.
    /// - Throws: ``FirmwareInputError``.
    public init(binary: [UInt8], name: String, options: GenerationOptions) throws(FirmwareInputError) {
        try self.init(image: binary, name: name, kind: .binary, entry: nil, options: options)
    }

    /// Takes a catalog image; its catalog fields fill in what `options` leave open.
    ///
    /// - Parameters:
    ///   - entry: The catalog entry, with its verified image.
    ///   - options: Init packet fields that override the catalog's.
    /// - Throws: ``FirmwareInputError``.
    public init(entry: CatalogEntry, options: GenerationOptions) throws(FirmwareInputError) {
        try self.init(image: entry.image, name: entry.id, kind: .catalog(id: entry.id), entry: entry, options: options)
    }

    private init(
        image: [UInt8],
        name: String,
        kind: Kind,
        entry: CatalogEntry?,
        options: GenerationOptions
    ) throws(FirmwareInputError) {
        guard !image.isEmpty else { throw .emptyImage(input: name) }
        let bytes = image.count % 4 == 0 ? image : FirmwareImage.paddedToWord(image)
        let firmwareImage: FirmwareImage
        switch entry?.type ?? .application {
        case .application: firmwareImage = .application(bytes)
        case .softdevice: firmwareImage = .softdevice(bytes)
        case .bootloader: firmwareImage = .bootloader(bytes)
        case .softdeviceBootloader:
            throw .missingOption(
                input: name, option: "a .zip package",
                reason: "a SoftDevice with bootloader needs its two sizes, which only a package carries")
        }
        let part: DFUPackage.Part
        do {
            switch options.protocolFamily {
            case .secure:
                let catalog = entry?.secureDFU
                if entry != nil, catalog == nil {
                    throw FirmwareInputError.protocolNotInCatalog(id: name, protocolName: "secure")
                }
                guard let softdevices = options.softdeviceRequired ?? catalog?.softdeviceRequired else {
                    throw FirmwareInputError.missingOption(
                        input: name, option: "--sd-req ID[,ID…]",
                        reason: "a Secure DFU init packet names the SoftDevices the image runs on (sd_req)")
                }
                let secureOptions = SecureInitOptions(
                    fwVersion: options.firmwareVersion ?? catalog?.firmwareVersion ?? 0xFFFF_FFFF,
                    hwVersion: options.hardwareVersion ?? catalog?.hardwareVersion ?? 52,
                    sdReq: softdevices.map(UInt32.init)
                )
                part = try DFUPackage.Part(
                    secure: firmwareImage, options: secureOptions, signer: options.signer, source: name)
            case .legacy:
                let catalog = entry?.legacyDFU
                if entry != nil, catalog == nil {
                    throw FirmwareInputError.protocolNotInCatalog(id: name, protocolName: "legacy")
                }
                part = try DFUPackage.Part(
                    legacy: firmwareImage,
                    deviceType: options.deviceType ?? catalog?.deviceType ?? 0xFFFF,
                    deviceRevision: options.deviceRevision ?? catalog?.deviceRevision ?? 0xFFFF,
                    applicationVersion: options.firmwareVersion ?? catalog?.applicationVersion ?? 0xFFFF_FFFF,
                    softdeviceReq: options.softdeviceRequired ?? catalog?.softdeviceIDs ?? [0xFFFE],
                    source: name)
            }
            try self.init(package: try DFUPackage(parts: [part], name: name), name: name, kind: kind)
        } catch let error as FirmwareInputError {
            throw error
        } catch let error as DFUPackageError {
            throw .package(error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    private init(package: DFUPackage, name: String, kind: Kind) throws(FirmwareInputError) {
        self.name = name
        self.kind = kind
        self.package = package
        do {
            firmware = try DFUFirmware(parts: package.parts.map(Self.firmwarePart))
        } catch {
            throw .firmware(input: name, error)
        }
    }

    private static func firmwarePart(_ part: DFUPackage.Part) throws(DFUError) -> FirmwarePart {
        let type: ImageType  // the engine's (DFUController), not DFUPackage.ImageType
        switch part.imageType {
        case .application: type = .application
        case .softdevice: type = .softDevice
        case .bootloader: type = .bootloader
        case .softdeviceBootloader:
            type = .softDeviceAndBootloader(
                softDeviceSize: part.sizes.softdevice, bootloaderSize: part.sizes.bootloader)
        }
        return try FirmwarePart(imageType: type, initPacket: part.initPacketBytes, image: part.firmware)
    }
}

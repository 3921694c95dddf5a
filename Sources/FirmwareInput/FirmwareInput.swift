package import Catalog
package import DFUController
package import DFUPackage
import HexConverter

/// An update ready to send: the parts of a package (read from a `.zip`, or generated for a `.hex`, `.bin` or
/// catalog image), and the same parts as the DFU engine takes them.
package struct FirmwareInput: Sendable {
    /// What the user gave.
    package enum Kind: Sendable, Equatable {
        case package
        case intelHex
        case binary
        case catalog(id: String)
    }

    /// The DFU protocol family of generated init packets.
    package enum ProtocolFamily: String, Sendable, CaseIterable {
        case secure
        case legacy
    }

    /// Init packet fields for bare images; `nil` fields come from the catalog entry, or are required.
    package struct GenerationOptions: Sendable {
        /// The protocol of the init packets (`--dfu`); `nil` makes both where the input allows, and the DFU engine
        /// sends the ones that suit the bootloader it finds.
        package var protocolFamily: ProtocolFamily?
        /// Secure: `hw_version`.
        package var hardwareVersion: UInt32?
        /// Secure: `fw_version`; legacy: `application_version`.
        package var firmwareVersion: UInt32?
        /// Secure `sd_req` / legacy `softdevice_req`: the SoftDevice firmware ids the image runs on.
        package var softdeviceRequired: [UInt16]?
        /// Legacy: `device_type`.
        package var deviceType: UInt16?
        /// Legacy: `device_revision`.
        package var deviceRevision: UInt16?
        /// Secure: sign the init command with this key.
        package var signer: (any InitPacketSigning)?

        /// Creates options with nothing chosen.
        package init() {}
    }

    /// The name of the input in messages.
    package let name: String
    package let kind: Kind
    /// The parts with their init packets, in transfer order (the Secure ones when both protocols were generated).
    package let package: DFUPackage
    /// The same parts with legacy init packets, when both protocols were generated for a bare image.
    package let legacyPackage: DFUPackage?
    /// The same parts for the DFU engine.
    package let firmware: DFUFirmware

    /// Reads a `.zip` package.
    ///
    /// - Parameters:
    ///   - zip: The archive's bytes.
    ///   - name: The input's name in messages.
    /// - Throws: ``FirmwareInputError``.
    package init(zip: [UInt8], name: String) throws(FirmwareInputError) {
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
    /// - Throws: `FirmwareInputError`, or HexConverter's `HexConverterError` for a malformed file.
    package init(hex: [UInt8], name: String, options: GenerationOptions) throws {
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
    package init(binary: [UInt8], name: String, options: GenerationOptions) throws(FirmwareInputError) {
        try self.init(image: binary, name: name, kind: .binary, entry: nil, options: options)
    }

    /// Takes a catalog image; its catalog fields fill in what `options` leave open.
    ///
    /// - Parameters:
    ///   - entry: The catalog entry, with its verified image.
    ///   - options: Init packet fields that override the catalog's.
    /// - Throws: ``FirmwareInputError``.
    package init(entry: CatalogEntry, options: GenerationOptions) throws(FirmwareInputError) {
        guard entry.mcuboot == nil else { throw .mcubootImage(id: entry.id) }
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
        let families: [ProtocolFamily]
        if let chosen = options.protocolFamily {
            families = [chosen]
        } else if let entry {
            families = [entry.secureDFU.map { _ in .secure }, entry.legacyDFU.map { _ in .legacy }].compactMap { $0 }
        } else {
            families = [.secure, .legacy]
        }
        var packages: [ProtocolFamily: DFUPackage] = [:]
        do {
            for family in families {
                let part = try Self.part(firmwareImage, family, name: name, entry: entry, options: options)
                packages[family] = try DFUPackage(parts: [part], name: name)
            }
        } catch let error as FirmwareInputError {
            throw error
        } catch let error as DFUPackageError {
            throw .package(error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
        guard let primary = packages[.secure] ?? packages[.legacy] else {
            throw .protocolNotInCatalog(id: name, protocolName: options.protocolFamily?.rawValue ?? "secure")
        }
        self.name = name
        self.kind = kind
        self.package = primary
        do {
            if options.protocolFamily != nil {
                legacyPackage = nil
                firmware = try DFUFirmware(parts: primary.parts.map(Self.firmwarePart))
            } else {
                legacyPackage = packages[.legacy]
                firmware = try DFUFirmware(
                    secure: try Self.firmwareParts(packages[.secure]), legacy: try Self.firmwareParts(packages[.legacy])
                )
            }
        } catch {
            throw .firmware(input: name, error)
        }
    }

    /// The part of `image` with a generated init packet of `family`.
    private static func part(
        _ image: FirmwareImage, _ family: ProtocolFamily, name: String, entry: CatalogEntry?,
        options: GenerationOptions
    ) throws -> DFUPackage.Part {
        switch family {
        case .secure:
            let catalog = entry?.secureDFU
            if entry != nil, catalog == nil {
                throw FirmwareInputError.protocolNotInCatalog(id: name, protocolName: "secure")
            }
            guard let softdevices = options.softdeviceRequired ?? catalog?.softdeviceRequired else {
                throw FirmwareInputError.missingOption(
                    input: name, option: "FirmwareOptions.softDeviceRequirements",
                    reason: "a Secure DFU init packet names the SoftDevices the image runs on (sd_req)")
            }
            let secureOptions = SecureInitOptions(
                fwVersion: options.firmwareVersion ?? catalog?.firmwareVersion ?? 0xFFFF_FFFF,
                hwVersion: options.hardwareVersion ?? catalog?.hardwareVersion ?? 52,
                sdReq: softdevices.map(UInt32.init)
            )
            return try DFUPackage.Part(secure: image, options: secureOptions, signer: options.signer, source: name)
        case .legacy:
            let catalog = entry?.legacyDFU
            if entry != nil, catalog == nil {
                throw FirmwareInputError.protocolNotInCatalog(id: name, protocolName: "legacy")
            }
            return try DFUPackage.Part(
                legacy: image,
                deviceType: options.deviceType ?? catalog?.deviceType ?? 0xFFFF,
                deviceRevision: options.deviceRevision ?? catalog?.deviceRevision ?? 0xFFFF,
                applicationVersion: options.firmwareVersion ?? catalog?.applicationVersion ?? 0xFFFF_FFFF,
                softdeviceReq: options.softdeviceRequired ?? catalog?.softdeviceIDs ?? [0xFFFE],
                source: name)
        }
    }

    private init(package: DFUPackage, name: String, kind: Kind) throws(FirmwareInputError) {
        self.name = name
        self.kind = kind
        self.package = package
        self.legacyPackage = nil
        // A package's init packets are of one protocol: a bootloader of the other is refused before anything is
        // sent, instead of reading one protocol's init packet as the other's.
        let isSecure = package.parts.allSatisfy { if case .secure = $0.initPacket { true } else { false } }
        let isLegacy = package.parts.allSatisfy { if case .legacy = $0.initPacket { true } else { false } }
        do {
            let parts = try Self.firmwareParts(package) ?? []
            firmware =
                isSecure
                ? try DFUFirmware(secure: parts, legacy: nil)
                : isLegacy ? try DFUFirmware(secure: nil, legacy: parts) : try DFUFirmware(parts: parts)
        } catch {
            throw .firmware(input: name, error)
        }
    }

    private static func firmwareParts(_ package: DFUPackage?) throws(DFUError) -> [FirmwarePart]? {
        guard let package else { return nil }
        var parts: [FirmwarePart] = []
        for part in package.parts { parts.append(try firmwarePart(part)) }
        return parts
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

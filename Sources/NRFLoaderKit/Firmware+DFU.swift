package import Catalog
package import DFUController
package import DFUPackage
import HexConverter

extension Firmware {
    /// The firmware as nRF5 DFU sends it: the parts of its package (read from a `.zip`, or generated for a `.hex`,
    /// `.bin` or catalog image), with init packets generated for `defaultProtocol` when the options name none
    /// (`nil`: both protocols where the input allows, and the engine sends the ones that suit the bootloader it
    /// finds), and signatures checked with the verification key.
    ///
    /// - Parameter defaultProtocol: The protocol of generated init packets when ``FirmwareOptions/dfuProtocol`` is
    ///   `nil`.
    /// - Returns: The update the DFU engine sends.
    /// - Throws: The input's own parse and signature errors, ``FirmwareInputError``, and ``FileFailure`` for a key.
    package func dfuFirmware(defaultProtocol: FirmwareOptions.DFUProtocol?) throws -> DFUFirmware {
        try dfuUpdate(defaultProtocol: defaultProtocol).firmware
    }

    /// The DFU firmware with the packages it is made of.
    ///
    /// The packages are the input's own, or one generated for each protocol (Secure first); a simulated bootloader
    /// is set up from their init packets.
    ///
    /// - Parameter defaultProtocol: As for ``dfuFirmware(defaultProtocol:)``.
    /// - Returns: The update and its packages.
    /// - Throws: As ``dfuFirmware(defaultProtocol:)``.
    package func dfuUpdate(defaultProtocol: FirmwareOptions.DFUProtocol?) throws
        -> (firmware: DFUFirmware, packages: [DFUPackage])
    {
        let (packages, followBootloader) = try dfuPackages(defaultProtocol: defaultProtocol)
        do {
            return (try DFUFirmware(packages: packages, followingBootloader: followBootloader), packages)
        } catch {
            throw FirmwareInputError.firmware(input: name, error)
        }
    }

    /// The packages, and whether their init packets go only to a bootloader of their own protocol.
    private func dfuPackages(defaultProtocol: FirmwareOptions.DFUProtocol?) throws
        -> (packages: [DFUPackage], followBootloader: Bool)
    {
        let generation = try options.generationOptions(defaultProtocol: defaultProtocol)
        let packages: [DFUPackage]
        var followBootloader = generation.protocolFamily == nil
        switch content {
        case .mcuboot: throw FirmwareInputError.mcubootImage(id: name)
        case .catalogEntry(let entry):
            guard entry.mcuboot == nil else { throw FirmwareInputError.mcubootImage(id: entry.id) }
            packages = try Self.generatedPackages(entry.image, name: entry.id, entry: entry, options: generation)
        case .dfu(let bytes):
            switch ImageFormat(path: source, contents: bytes) {
            case .package:
                do { packages = [try DFUPackage(zip: bytes, name: name)] } catch {
                    throw FirmwareInputError.package(error)
                }
                // A package's init packets are of one protocol: a bootloader of the other is refused before
                // anything is sent, instead of reading one protocol's init packet as the other's.
                followBootloader = true
            case .intelHex:
                let image = try IntelHexParser.parse(bytes, source: name, window: .nordic)
                guard !image.isEmpty else { throw FirmwareInputError.emptyImage(input: name) }
                packages = try Self.generatedPackages(
                    image.binary(alignment: 4), name: name, entry: nil, options: generation)
            case .binary:
                packages = try Self.generatedPackages(bytes, name: name, entry: nil, options: generation)
            }
        }
        try options.verifySignatures(of: packages, input: name)
        return (packages, followBootloader)
    }

    /// The packages of a bare image, one per protocol family (Secure first): the catalog entry's fields fill in what
    /// `options` leave open.
    private static func generatedPackages(
        _ image: [UInt8],
        name: String,
        entry: CatalogEntry?,
        options: DFUGenerationOptions
    ) throws(FirmwareInputError) -> [DFUPackage] {
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
        let families: [FirmwareOptions.DFUProtocol]
        if let chosen = options.protocolFamily {
            families = [chosen]
        } else if let entry {
            families = [entry.secureDFU.map { _ in .secure }, entry.legacyDFU.map { _ in .legacy }].compactMap { $0 }
        } else {
            families = [.secure, .legacy]
        }
        guard !families.isEmpty else {
            throw .protocolNotInCatalog(id: name, protocolName: "secure")
        }
        do {
            return try families.map { family in
                try DFUPackage(
                    parts: [try part(firmwareImage, family, name: name, entry: entry, options: options)], name: name)
            }
        } catch let error as FirmwareInputError {
            throw error
        } catch let error as DFUPackageError {
            throw .package(error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    /// The part of `image` with a generated init packet of `family`.
    private static func part(
        _ image: FirmwareImage, _ family: FirmwareOptions.DFUProtocol, name: String, entry: CatalogEntry?,
        options: DFUGenerationOptions
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
}

/// Init packet fields for bare images; `nil` fields come from the catalog entry, or are required.
struct DFUGenerationOptions {
    /// The protocol of the init packets; `nil` makes both where the input allows.
    var protocolFamily: FirmwareOptions.DFUProtocol?
    /// Secure: `hw_version`.
    var hardwareVersion: UInt32?
    /// Secure: `fw_version`; legacy: `application_version`.
    var firmwareVersion: UInt32?
    /// Secure `sd_req` / legacy `softdevice_req`: the SoftDevice firmware ids the image runs on.
    var softdeviceRequired: [UInt16]?
    /// Legacy: `device_type`.
    var deviceType: UInt16?
    /// Legacy: `device_revision`.
    var deviceRevision: UInt16?
    /// Secure: sign the init command with this key.
    var signer: (any InitPacketSigning)?
}

extension DFUFirmware {
    /// The update of `packages`' parts.
    ///
    /// - Parameters:
    ///   - packages: One package, or the same images with each protocol's init packets.
    ///   - followingBootloader: Whether each package's parts go only to a bootloader of its init packets' protocol
    ///     (a package mixing both goes to any); otherwise the first package's parts go to whatever is found.
    /// - Throws: ``DFUError/invalidFirmware(_:)`` for parts the engine cannot send.
    init(packages: [DFUPackage], followingBootloader: Bool) throws(DFUError) {
        guard followingBootloader else {
            try self.init(parts: try Self.parts(of: packages.first))
            return
        }
        func isSecure(_ part: DFUPackage.Part) -> Bool { if case .secure = part.initPacket { true } else { false } }
        let secure = packages.first { $0.parts.allSatisfy(isSecure) }
        let legacy = packages.first { !$0.parts.contains(where: isSecure) }
        if secure == nil, legacy == nil {
            try self.init(parts: try Self.parts(of: packages.first))
        } else {
            try self.init(secure: try secure.map(Self.parts), legacy: try legacy.map(Self.parts))
        }
    }

    private static func parts(of package: DFUPackage?) throws(DFUError) -> [Part] {
        var parts: [Part] = []
        for part in package?.parts ?? [] { parts.append(try Self.part(part)) }
        return parts
    }

    private static func part(_ part: DFUPackage.Part) throws(DFUError) -> Part {
        let type: ImageType  // the engine's (DFUController), not DFUPackage.ImageType
        switch part.imageType {
        case .application: type = .application
        case .softdevice: type = .softDevice
        case .bootloader: type = .bootloader
        case .softdeviceBootloader:
            type = .softDeviceAndBootloader(
                softDeviceSize: part.sizes.softdevice, bootloaderSize: part.sizes.bootloader)
        }
        return try Part(imageType: type, initPacket: part.initPacketBytes, image: part.firmware)
    }
}

extension DFUPackage.Part {
    /// Reads and cross-checks one manifest entry.
    ///
    /// - Parameters:
    ///   - type: The manifest key.
    ///   - entry: The manifest entry under that key.
    ///   - isLegacy: Whether the manifest is a legacy one.
    ///   - archive: The package archive.
    /// - Throws: The manifest, init packet and image validation cases of ``DFUPackageError``.
    init(
        _ type: DFUPackage.ImageType,
        _ entry: Manifest.Image,
        isLegacy: Bool,
        in archive: ZipArchive
    ) throws(DFUPackageError) {
        guard let firmware = archive.contents(of: entry.binFile) else {
            throw .missingFile(archive: archive.name, file: entry.binFile)
        }
        guard let initPacketBytes = archive.contents(of: entry.datFile) else {
            throw .missingFile(archive: archive.name, file: entry.datFile)
        }
        let binName = "\(archive.name)/\(entry.binFile)"
        let datName = "\(archive.name)/\(entry.datFile)"
        self.imageType = type
        self.binFile = entry.binFile
        self.datFile = entry.datFile
        self.firmware = firmware
        self.initPacketBytes = initPacketBytes

        if isLegacy {
            let packet = try LegacyInitPacket(decoding: initPacketBytes, file: datName)
            try packet.validate(image: firmware, imageFile: binName)
            if let data = entry.initPacketData {
                try Self.compare(data, with: packet, file: datName, archive: archive.name, key: type.rawValue)
            }
            self.initPacket = .legacy(packet)
            self.signedMessage = packet.signedMessage
            self.sizes = try Self.legacySizes(
                type, entry, imageSize: firmware.count, archive: archive.name, binName: binName)
        } else {
            let packet = try SecureInitPacket(decoding: initPacketBytes, file: datName)
            guard let command = packet.command.initCommand else {
                throw .missingField(file: datName, field: "Command.init")
            }
            guard let declaredType = command.type else { throw .missingField(file: datName, field: "InitCommand.type") }
            guard type.accepts(declaredType) else {
                throw .imageTypeMismatch(file: datName, manifest: type, initPacket: declaredType)
            }
            try command.validate(image: firmware, imageFile: binName, initPacketFile: datName)
            self.initPacket = .secure(packet)
            self.signedMessage = try SecureInitPacket.signedMessage(in: initPacketBytes, file: datName)
            self.sizes = try Self.secureSizes(type, command, metadata: entry.infoReadOnlyMetadata, datName: datName)
        }
    }

    /// Sizes of a legacy image; SD+BL entries carry `sd_size` and `bl_size` in the manifest, which must add up.
    private static func legacySizes(
        _ type: DFUPackage.ImageType,
        _ entry: Manifest.Image,
        imageSize: Int,
        archive: String,
        binName: String
    ) throws(DFUPackageError) -> DFUPackage.ImageSizes {
        switch type {
        case .application: return DFUPackage.ImageSizes(application: imageSize)
        case .softdevice: return DFUPackage.ImageSizes(softdevice: imageSize)
        case .bootloader: return DFUPackage.ImageSizes(bootloader: imageSize)
        case .softdeviceBootloader:
            func missing(_ key: String) -> DFUPackageError {
                .invalidManifest(archive: archive, problem: .missingKey(path: "manifest.softdevice_bootloader.\(key)"))
            }
            guard let sdSize = entry.sdSize else { throw missing("sd_size") }
            guard let blSize = entry.blSize else { throw missing("bl_size") }
            // Each size must lie within the image before they are added: a JSON number can be up to 2^63 − 1.
            for (key, size) in [("sd_size", sdSize), ("bl_size", blSize)] where size < 1 || size > imageSize {
                let reason = size < 1 ? "not a positive size" : "more than the image's \(imageSize) bytes"
                throw .invalidManifest(
                    archive: archive,
                    problem: .impossibleValue(
                        path: "manifest.softdevice_bootloader.\(key)", value: size, reason: reason))
            }
            guard sdSize + blSize == imageSize else {
                throw .imageSizeMismatch(file: binName, actual: imageSize, declared: sdSize + blSize)
            }
            return DFUPackage.ImageSizes(softdevice: sdSize, bootloader: blSize)
        }
    }

    /// Sizes of a Secure DFU image from its (already validated) init command; an SD+BL entry's
    /// `info_read_only_metadata`, if present, must agree.
    private static func secureSizes(
        _ type: DFUPackage.ImageType,
        _ command: InitCommand,
        metadata: Manifest.Image.SizeMetadata?,
        datName: String
    ) throws(DFUPackageError) -> DFUPackage.ImageSizes {
        let sizes = DFUPackage.ImageSizes(
            softdevice: Int(command.sdSize ?? 0), bootloader: Int(command.blSize ?? 0),
            application: Int(command.appSize ?? 0))
        switch type {
        case .application: return DFUPackage.ImageSizes(application: sizes.application)
        case .softdevice: return DFUPackage.ImageSizes(softdevice: sizes.softdevice)
        case .bootloader: return DFUPackage.ImageSizes(bootloader: sizes.bootloader)
        case .softdeviceBootloader:
            if let metadata {
                try compare("sd_size", manifest: metadata.sdSize, initPacket: sizes.softdevice, file: datName)
                try compare("bl_size", manifest: metadata.blSize, initPacket: sizes.bootloader, file: datName)
            }
            return DFUPackage.ImageSizes(softdevice: sizes.softdevice, bootloader: sizes.bootloader)
        }
    }

    /// Checks a legacy manifest's `init_packet_data` against the decoded `.dat`.
    private static func compare(
        _ data: Manifest.Image.InitPacketData,
        with packet: LegacyInitPacket,
        file: String,
        archive: String,
        key: String
    ) throws(DFUPackageError) {
        func narrow<T: FixedWidthInteger>(_ value: Int?, _ field: String) throws(DFUPackageError) -> T? {
            guard let value else { return nil }
            guard let narrow = T(exactly: value) else {
                let path = "manifest.\(key).init_packet_data.\(field)"
                throw .invalidManifest(archive: archive, problem: .invalidValue(path: path))
            }
            return narrow
        }
        func check<T: FixedWidthInteger>(_ field: String, _ manifest: Int?, _ initPacket: T) throws(DFUPackageError) {
            guard let manifest: T = try narrow(manifest, field), manifest != initPacket else { return }
            let width = T.bitWidth / 4
            throw .manifestMismatch(
                file: file, field: field, manifestValue: hex(manifest, width: width),
                initPacketValue: hex(initPacket, width: width))
        }
        try check("device_type", data.deviceType, packet.deviceType)
        try check("device_revision", data.deviceRevision, packet.deviceRevision)
        try check("application_version", data.applicationVersion, packet.applicationVersion)
        if let list = data.softdeviceReq {
            var requirements: [UInt16] = []
            for (index, value) in list.enumerated() {
                guard let requirement: UInt16 = try narrow(value, "softdevice_req[\(index)]") else { continue }
                requirements.append(requirement)
            }
            func text(_ values: [UInt16]) -> String {
                "[" + values.map { hex($0, width: 4) }.joined(separator: ", ") + "]"
            }
            guard requirements == packet.softdeviceReq else {
                throw .manifestMismatch(
                    file: file, field: "softdevice_req", manifestValue: text(requirements),
                    initPacketValue: text(packet.softdeviceReq))
            }
        }
        switch packet.validation {
        case .crc16(let crc), .extendedCRC16(let crc): try check("firmware_crc16", data.firmwareCRC16, crc)
        case .sha256, .signedSHA256: break
        }
    }

    private static func compare(_ field: String, manifest: Int, initPacket: Int, file: String) throws(DFUPackageError) {
        guard manifest == initPacket else {
            throw .manifestMismatch(
                file: file, field: field, manifestValue: String(manifest), initPacketValue: String(initPacket))
        }
    }
}

extension DFUPackage.Part {
    /// Makes a Secure DFU part from a bare image: generates its init packet as nrfutil `pkg generate` would, signed
    /// when a signer is given.
    ///
    /// An unsigned packet is `Packet { command { op_code INIT, init } }`; a signed one is
    /// `Packet { signed_command { command, signature_type ECDSA_P256_SHA256, signature } }`, the signature covering
    /// the serialized ``InitCommand`` only (nrfutil `package.py` signs `get_init_command_bytes()`).
    ///
    /// The part's files are named as nrfutil names them: the source's name with `.bin` and `.dat` (`sd_bl.bin` for
    /// SoftDevice with bootloader).
    ///
    /// - Parameters:
    ///   - image: The firmware.
    ///   - options: The init command fields nrfutil takes as options.
    ///   - signer: Signs the init command (and ECDSA boot validation); nil for an unsigned packet.
    ///   - source: The input's display name, e.g. the `.hex` path the user gave; used in errors and file names.
    /// - Throws: The cases of ``InitCommand/init(generatingFor:options:signer:file:)``, and `initPacketTooLarge`.
    package init(
        secure image: FirmwareImage,
        options: SecureInitOptions,
        signer: (any InitPacketSigning)? = nil,
        source: String
    ) throws(DFUPackageError) {
        let command = try InitCommand(generatingFor: image, options: options, signer: signer, file: source)
        let message = command.encoded()
        var signedMessage: SignedMessage?
        var signature: SecureInitPacket.Signature?
        if let signer {
            let stored = signer.nordicSignature(over: message)
            precondition(stored.count == 64, "an InitPacketSigning returned \(stored.count) bytes, not 64")
            signature = SecureInitPacket.Signature(type: .ecdsaP256SHA256, bytes: stored)
            signedMessage = SignedMessage(
                message: message, signatureType: .ecdsaP256SHA256,
                signature: SignedMessage.swappingHalvesByteOrder(stored))
        }
        let packet = SecureInitPacket(initCommand: command, signature: signature)
        let bytes = packet.encoded()
        guard bytes.count <= InitCommand.maximumPacketSize else {
            throw .initPacketTooLarge(file: source, size: bytes.count, limit: InitCommand.maximumPacketSize)
        }
        let stem = Self.fileStem(image, source: source)
        self.init(
            imageType: image.imageType, binFile: stem + ".bin", datFile: stem + ".dat", firmware: image.bytes,
            initPacketBytes: bytes, initPacket: .secure(packet), sizes: image.sizes, signedMessage: signedMessage)
    }

    /// Makes a legacy DFU part from a bare image: generates its `dfu_init_packet_t` as nrfutil 0.5.x (or
    /// adafruit-nrfutil) would, with ``LegacyInitPacket/init(deviceType:deviceRevision:applicationVersion:softdeviceReq:image:format:)``.
    ///
    /// The SDK 7–11 bootloaders reject sizes that are not a multiple of 4 (Start DFU answers "not supported",
    /// dfu-protocols.md §1.4), so every piece must be a whole number of words.
    ///
    /// - Parameters:
    ///   - image: The firmware; for SoftDevice with bootloader the CRC covers both, SoftDevice first.
    ///   - deviceType: `device_type`; 0xFFFF (nrfutil's default) matches any device.
    ///   - deviceRevision: `device_revision`; 0xFFFF matches any.
    ///   - applicationVersion: `application_version`; 0xFFFFFFFF by default.
    ///   - softdeviceReq: `softdevice_req`; 0xFFFE accepts any SoftDevice.
    ///   - format: Which validation to append; dfu_ver 0.5's bare CRC-16 by default.
    ///   - source: The input's display name, used in errors and file names.
    /// - Throws: `emptyImage`, `imageNotWordAligned`, `imageTooLarge`.
    package init(
        legacy image: FirmwareImage,
        deviceType: UInt16 = 0xFFFF,
        deviceRevision: UInt16 = 0xFFFF,
        applicationVersion: UInt32 = 0xFFFF_FFFF,
        softdeviceReq: [UInt16] = [0xFFFE],
        format: LegacyInitPacket.Format = .crc16,
        source: String
    ) throws(DFUPackageError) {
        try InitCommand.checkPieces(of: image, file: source)
        let bytes = image.bytes
        guard UInt32(exactly: bytes.count) != nil else { throw .imageTooLarge(file: source, size: bytes.count) }
        let packet = LegacyInitPacket(
            deviceType: deviceType, deviceRevision: deviceRevision, applicationVersion: applicationVersion,
            softdeviceReq: softdeviceReq, image: bytes, format: format)
        let stem = Self.fileStem(image, source: source)
        self.init(
            imageType: image.imageType, binFile: stem + ".bin", datFile: stem + ".dat", firmware: bytes,
            initPacketBytes: packet.encoded(), initPacket: .legacy(packet), sizes: image.sizes, signedMessage: nil)
    }

    /// nrfutil's file name without extension: `sd_bl`, or the source's last path component without its extension.
    private static func fileStem(_ image: FirmwareImage, source: String) -> String {
        if case .softdeviceBootloader = image { return "sd_bl" }
        let name = source.split(separator: "/").last.map(String.init) ?? source
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}

extension DFUPackage {
    /// Assembles generated parts into a package, in nrfutil's transfer order.
    ///
    /// - Parameters:
    ///   - parts: One part per image type, all Secure or all legacy (from ``Part/init(secure:options:signer:source:)``
    ///     or ``Part/init(legacy:deviceType:deviceRevision:applicationVersion:softdeviceReq:format:source:)``).
    ///   - name: The package's display name.
    /// - Throws: `invalidManifest` with `noImages` for no parts, `duplicatePart`, `mixedPartFormats`.
    package init(parts: [Part], name: String) throws(DFUPackageError) {
        var ordered: [Part] = []
        for type in ImageType.allCases {
            let matching = parts.filter { $0.imageType == type }
            guard matching.count <= 1 else { throw .duplicatePart(package: name, imageType: type) }
            ordered += matching
        }
        guard let first = ordered.first else { throw .invalidManifest(archive: name, problem: .noImages) }
        let format: Format
        switch first.initPacket {
        case .secure: format = .secure
        case .legacy(let packet): format = .legacy(dfuVersion: packet.dfuVersion)
        }
        for part in ordered {
            switch (format, part.initPacket) {
            case (.secure, .secure), (.legacy, .legacy): continue
            case (.secure, .legacy), (.legacy, .secure): throw .mixedPartFormats(package: name)
            }
        }
        self.name = name
        self.format = format
        self.parts = ordered
    }
}

extension LegacyInitPacket {
    /// The nrfutil `--dfu-ver` that writes this packet's layout: 0.5, 0.6, 0.7 or 0.8.
    package var dfuVersion: Double {
        switch validation {
        case .crc16: 0.5
        case .extendedCRC16: 0.6
        case .sha256: 0.7
        case .signedSHA256: 0.8
        }
    }
}

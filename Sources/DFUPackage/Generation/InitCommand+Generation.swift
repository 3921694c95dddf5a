extension InitCommand {
    /// The largest init packet a Secure DFU bootloader accepts: `INIT_COMMAND_MAX_SIZE`, 256 bytes in SDK 12–17
    /// (a larger Create Command object gets "insufficient resources", dfu-protocols.md §2.5).
    package static let maximumPacketSize = 256

    /// The most `boot_validation` entries a bootloader decodes (`max_count:3` in the SDK's `dfu-cc.options`).
    package static let maximumBootValidationCount = 3

    /// Generates the command nrfutil `pkg generate` writes for `image`.
    ///
    /// Fields are set as `init_packet_pb.py` sets them, so the encoding is byte-identical to nrfutil's for the same
    /// inputs: `fw_version`, `hw_version`, `sd_req`, `type`, all three sizes (zero when unused), the byte-reversed
    /// SHA-256 of the transferred image, `is_debug` (even when false), then `boot_validation` only if asked.
    ///
    /// The image checks are the bootloader's, made before anything is sent: every piece must be non-empty and a
    /// multiple of 4 bytes, because the bootloader hands each data write to `nrf_fstorage_write`, which rejects a
    /// length that is not a multiple of the flash program unit (4 bytes); SDK 15+ then drops the write silently
    /// (`nrf_dfu_req_handler.c`, `on_data_obj_write_request`). nrfutil avoids this by padding HEX conversions to a
    /// whole word; ``FirmwareImage/paddedToWord(_:)`` does the same.
    ///
    /// - Parameters:
    ///   - image: The firmware.
    ///   - options: The fields nrfutil takes as options.
    ///   - signer: Signs images for `VALIDATE_ECDSA_P256_SHA256` boot validation; not used otherwise.
    ///   - file: The image's display name, for errors.
    /// - Throws: `emptyImage`, `imageNotWordAligned`, `imageTooLarge`, `emptySoftDeviceRequirement`,
    ///   `tooManyBootValidations`, `bootValidationNeedsSigner`.
    package init(
        generatingFor image: FirmwareImage,
        options: SecureInitOptions,
        signer: (any InitPacketSigning)? = nil,
        file: String
    ) throws(DFUPackageError) {
        try Self.checkPieces(of: image, file: file)
        let bytes = image.bytes
        guard UInt32(exactly: bytes.count) != nil else { throw .imageTooLarge(file: file, size: bytes.count) }
        guard !options.sdReq.isEmpty else { throw .emptySoftDeviceRequirement(file: file) }
        guard options.bootValidation.count <= Self.maximumBootValidationCount else {
            throw .tooManyBootValidations(
                file: file, count: options.bootValidation.count, limit: Self.maximumBootValidationCount)
        }
        let bootValidation = try Self.bootValidation(options.bootValidation, for: image, signer: signer, file: file)

        var sdReq: [UInt32] = []
        for requirement in options.sdReq where !sdReq.contains(requirement) { sdReq.append(requirement) }
        let sizes = image.sizes
        let type: FirmwareType
        switch image {
        case .application: type = .application
        case .softdevice: type = .softdevice
        case .bootloader: type = .bootloader
        case .softdeviceBootloader: type = .softdeviceBootloader
        }
        self.init(
            fwVersion: type == .softdevice ? 0xFFFF_FFFF : options.fwVersion,
            hwVersion: options.hwVersion,
            sdReq: sdReq,
            type: type,
            sdSize: UInt32(truncatingIfNeeded: sizes.softdevice),
            blSize: UInt32(truncatingIfNeeded: sizes.bootloader),
            appSize: UInt32(truncatingIfNeeded: sizes.application),
            hash: Hash(sha256Of: bytes),
            isDebug: options.isDebug,
            bootValidation: bootValidation)
    }

    /// Checks that every piece the bootloader writes is non-empty and a whole number of words.
    ///
    /// - Parameters:
    ///   - image: The firmware.
    ///   - file: The image's display name.
    /// - Throws: `emptyImage`, `imageNotWordAligned`.
    static func checkPieces(of image: FirmwareImage, file: String) throws(DFUPackageError) {
        for piece in image.pieces {
            guard !piece.bytes.isEmpty else { throw .emptyImage(file: file, imageType: piece.imageType) }
            guard piece.bytes.count % 4 == 0 else {
                throw .imageNotWordAligned(file: file, imageType: piece.imageType, size: piece.bytes.count)
            }
        }
    }

    private static func bootValidation(
        _ types: [ValidationType],
        for image: FirmwareImage,
        signer: (any InitPacketSigning)?,
        file: String
    ) throws(DFUPackageError) -> [BootValidation] {
        var entries: [BootValidation] = []
        for (index, type) in types.enumerated() {
            switch type {
            case .noValidation, .validateGeneratedCRC, .validateSHA256:
                entries.append(BootValidation(type: type))
            case .validateECDSAP256SHA256:
                guard let signer else { throw .bootValidationNeedsSigner(file: file) }
                // postvalidate_sd_bl checks entry 0 against the SoftDevice region and entry 1 against the
                // bootloader's; a single image is checked whole.
                let pieces = image.pieces
                let covered = pieces.count > 1 && index < pieces.count ? pieces[index].bytes : image.bytes
                let signature = signer.nordicSignature(over: covered)
                precondition(signature.count == 64, "an InitPacketSigning returned \(signature.count) bytes, not 64")
                entries.append(BootValidation(type: type, bytes: signature))
            }
        }
        return entries
    }
}

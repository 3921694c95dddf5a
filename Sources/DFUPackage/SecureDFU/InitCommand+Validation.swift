import Checksums

extension InitCommand {
    /// Checks that `image` is what this init command describes: its size (``checkSize(of:imageFile:initPacketFile:)``)
    /// and its SHA-256 (``checkHash(of:imageFile:initPacketFile:)``), the same checks the bootloader makes after the
    /// transfer, done before it.
    ///
    /// - Parameters:
    ///   - image: The firmware `.bin`.
    ///   - imageFile: The image's display name, for errors about it.
    ///   - initPacketFile: The `.dat` file's display name, for errors about missing fields.
    /// - Throws: `missingField`, `imageSizeMismatch`, `unsupportedHashType`, `imageHashMismatch`.
    package func validate(image: [UInt8], imageFile: String, initPacketFile: String) throws(DFUPackageError) {
        try checkSize(of: image, imageFile: imageFile, initPacketFile: initPacketFile)
        try checkHash(of: image, imageFile: imageFile, initPacketFile: initPacketFile)
    }

    /// The image size the command declares for its ``type``: `app_size` for (external) applications, `sd_size`
    /// for a SoftDevice, `bl_size` for a bootloader, `sd_size + bl_size` for SoftDevice with bootloader.
    ///
    /// - Parameter initPacketFile: The `.dat` file's display name, for errors.
    /// - Returns: The size in bytes.
    /// - Throws: `missingField` when `type` or a size the type needs is absent.
    package func declaredImageSize(initPacketFile: String) throws(DFUPackageError) -> Int {
        func require(_ value: UInt32?, _ field: String) throws(DFUPackageError) -> Int {
            guard let value else { throw .missingField(file: initPacketFile, field: field) }
            return Int(value)
        }
        guard let type else { throw .missingField(file: initPacketFile, field: "InitCommand.type") }
        switch type {
        case .application, .externalApplication: return try require(appSize, "InitCommand.app_size")
        case .softdevice: return try require(sdSize, "InitCommand.sd_size")
        case .bootloader: return try require(blSize, "InitCommand.bl_size")
        case .softdeviceBootloader:
            return try require(sdSize, "InitCommand.sd_size") + require(blSize, "InitCommand.bl_size")
        }
    }

    /// Checks that `image` has the size the command declares (see ``declaredImageSize(initPacketFile:)``).
    ///
    /// - Parameters:
    ///   - image: The firmware `.bin`.
    ///   - imageFile: The image's display name.
    ///   - initPacketFile: The `.dat` file's display name.
    /// - Throws: `missingField`, `imageSizeMismatch`.
    package func checkSize(of image: [UInt8], imageFile: String, initPacketFile: String) throws(DFUPackageError) {
        let declared = try declaredImageSize(initPacketFile: initPacketFile)
        guard image.count == declared else {
            throw .imageSizeMismatch(file: imageFile, actual: image.count, declared: declared)
        }
    }

    /// Checks that the command's hash is SHA-256 and equals the image's, undoing nrfutil's byte reversal.
    ///
    /// - Parameters:
    ///   - image: The firmware `.bin`.
    ///   - imageFile: The image's display name.
    ///   - initPacketFile: The `.dat` file's display name.
    /// - Throws: `missingField` (no hash), `unsupportedHashType`, `imageHashMismatch` (digests in standard order).
    package func checkHash(of image: [UInt8], imageFile: String, initPacketFile: String) throws(DFUPackageError) {
        guard let hash else { throw .missingField(file: initPacketFile, field: "InitCommand.hash") }
        guard hash.hashType == .sha256 else {
            throw .unsupportedHashType(file: initPacketFile, hashType: hash.hashType)
        }
        let actual = SHA256.hash(image)
        guard actual == hash.standardOrderDigest else {
            throw .imageHashMismatch(file: imageFile, actual: actual, declared: hash.standardOrderDigest)
        }
    }
}

/// A firmware distribution package (`.zip` made by nrfutil or adafruit-nrfutil), read and cross-checked.
///
/// Creating a value verifies everything that can be verified without the device: the zip container (sizes,
/// CRC-32s, names), the manifest, every init packet's encoding, and that each image matches its init packet
/// (size and SHA-256 for Secure DFU, CRC-16 or SHA-256 for legacy) and its manifest entry. Signatures are exposed
/// as ``Part/signedMessage`` but not verified here.
package struct DFUPackage: Sendable, Equatable {
    /// The image kinds a manifest can list, named by their manifest keys.
    ///
    /// `allCases` is nrfutil's transfer order: SoftDevice with bootloader (or SoftDevice, then bootloader) first,
    /// the application last, each in its own connection.
    package enum ImageType: String, Sendable, CaseIterable {
        /// `softdevice_bootloader`: one image, the SoftDevice immediately followed by the bootloader.
        case softdeviceBootloader = "softdevice_bootloader"
        /// `softdevice`.
        case softdevice
        /// `bootloader`.
        case bootloader
        /// `application`.
        case application

        /// Whether a Secure DFU init packet of `type` may describe an image filed under this key.
        ///
        /// - Parameter type: The init packet's `type`.
        /// - Returns: True for the matching type; `application` also accepts `EXTERNAL_APPLICATION`.
        package func accepts(_ type: FirmwareType) -> Bool {
            switch (self, type) {
            case (.softdeviceBootloader, .softdeviceBootloader), (.softdevice, .softdevice),
                (.bootloader, .bootloader), (.application, .application), (.application, .externalApplication):
                true
            default:
                false
            }
        }
    }

    /// Which DFU generation a package is for.
    package enum Format: Sendable, Equatable {
        /// Secure DFU (nRF5 SDK 12+): protobuf init packets, no `dfu_version`.
        case secure
        /// Legacy DFU (SDK 7–11): struct init packets; `dfuVersion` is the manifest's `dfu_version` if present.
        case legacy(dfuVersion: Double?)
    }

    /// A decoded init packet of either generation.
    package enum InitPacket: Sendable, Equatable {
        /// A `dfu-cc.proto` packet.
        case secure(SecureInitPacket)
        /// A `dfu_init_packet_t` struct.
        case legacy(LegacyInitPacket)
    }

    /// How an image divides into SoftDevice, bootloader and application bytes (legacy DFU's size packet).
    package struct ImageSizes: Sendable, Equatable {
        /// SoftDevice bytes, at the start of the image.
        package var softdevice: Int
        /// Bootloader bytes, after the SoftDevice.
        package var bootloader: Int
        /// Application bytes.
        package var application: Int

        /// Creates sizes in bytes.
        ///
        /// - Parameters:
        ///   - softdevice: SoftDevice bytes.
        ///   - bootloader: Bootloader bytes.
        ///   - application: Application bytes.
        package init(softdevice: Int = 0, bootloader: Int = 0, application: Int = 0) {
            self.softdevice = softdevice
            self.bootloader = bootloader
            self.application = application
        }
    }

    /// One image with its init packet: one DFU transfer.
    package struct Part: Sendable, Equatable {
        /// The manifest key the image is listed under.
        package let imageType: ImageType
        /// The `.bin` entry's name in the archive.
        package let binFile: String
        /// The `.dat` entry's name in the archive.
        package let datFile: String
        /// The firmware image, verified against the init packet.
        package let firmware: [UInt8]
        /// The `.dat` bytes exactly as stored: what is sent to the device.
        package let initPacketBytes: [UInt8]
        /// The decoded init packet.
        package let initPacket: InitPacket
        /// The split of ``firmware`` into SoftDevice, bootloader and application bytes.
        package let sizes: ImageSizes
        /// The signed bytes and signature, if the init packet is signed (Secure DFU, or legacy dfu_ver 0.8).
        package let signedMessage: SignedMessage?
    }

    /// The display name given when reading, used in messages.
    package let name: String
    /// Secure or legacy.
    package let format: Format
    /// The images in transfer order (see ``ImageType``).
    package let parts: [Part]

    /// Reads a package from the bytes of its `.zip` file.
    ///
    /// - Parameters:
    ///   - bytes: The `.zip` file's contents.
    ///   - name: The display name for error messages, e.g. the path the user gave or `<stdin>`.
    ///   - limits: Caps on declared sizes inside the archive.
    /// - Throws: Any ``DFUPackageError``: zip cases from ``ZipArchive``, then the manifest, init packet and image
    ///   validation cases.
    package init(zip bytes: [UInt8], name: String, limits: ZipArchive.Limits = ZipArchive.Limits())
        throws(DFUPackageError)
    {
        try self.init(archive: ZipArchive(bytes: bytes, name: name, limits: limits))
    }

    /// Reads a package from an archive already opened.
    ///
    /// - Parameter archive: The verified archive.
    /// - Throws: `missingManifest`, `invalidManifest`, `missingFile`, `manifestMismatch`, `invalidInitPacket`,
    ///   `emptyInitPacket`, `ambiguousInitPacket`, `missingField`, `imageTypeMismatch`, `imageSizeMismatch`,
    ///   `imageHashMismatch`, `imageCRC16Mismatch`, `unsupportedHashType`.
    package init(archive: ZipArchive) throws(DFUPackageError) {
        guard let manifestBytes = archive.contents(of: "manifest.json") else {
            throw .missingManifest(archive: archive.name)
        }
        let manifest = try Manifest(json: manifestBytes, archive: archive.name)
        var parts: [Part] = []
        for type in ImageType.allCases {
            guard let entry = manifest.image(type) else { continue }
            parts.append(try Part(type, entry, isLegacy: manifest.isLegacy, in: archive))
        }
        guard !parts.isEmpty else { throw .invalidManifest(archive: archive.name, problem: .noImages) }
        self.name = archive.name
        self.format = manifest.isLegacy ? .legacy(dfuVersion: manifest.dfuVersion) : .secure
        self.parts = parts
    }
}

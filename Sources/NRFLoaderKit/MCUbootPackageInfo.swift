package import MCUbootImage
package import MCUbootPackage

/// What inspecting an nRF Connect SDK `dfu_application.zip` shows: its manifest and, for each image, the manifest's
/// fields and what ``MCUbootImageInfo`` shows of the image.
public struct MCUbootPackageInfo: Sendable {
    /// One image of the package.
    public struct Image: Sendable {
        /// The manifest's `image_index`.
        public let imageIndex: Int
        /// The image's file in the zip.
        public let file: String
        /// The manifest's `type`, if any.
        public let type: String?
        /// The manifest's `board`, if any.
        public let board: String?
        /// The manifest's `soc`, if any.
        public let soc: String?
        /// The manifest's `slot_index_primary`, if any.
        public let slotIndexPrimary: Int?
        /// The manifest's `slot_index_secondary`, if any.
        public let slotIndexSecondary: Int?
        /// The manifest's `load_address`, if any.
        public let loadAddress: Int?
        /// The manifest's `version`, if any.
        public let version: String?
        /// The image itself.
        public let image: MCUbootImageInfo
    }

    /// The package's name: its path, or `<stdin>`.
    public let file: String
    /// The manifest's `format-version`, if any.
    public let formatVersion: Int?
    /// The manifest's `time`, if any.
    public let time: Int?
    /// The manifest's `name`, if any.
    public let name: String?
    /// The images, in the manifest's order.
    public let images: [Image]

    package init(package: MCUbootPackage, key: MCUbootVerificationKey?) {
        file = package.archive
        formatVersion = package.formatVersion
        time = package.time
        name = package.name
        images = package.images.map { entry in
            Image(
                imageIndex: entry.imageIndex, file: entry.file, type: entry.type, board: entry.board, soc: entry.soc,
                slotIndexPrimary: entry.slotIndexPrimary, slotIndexSecondary: entry.slotIndexSecondary,
                loadAddress: entry.loadAddress, version: entry.version,
                image: MCUbootImageInfo(image: entry.image, key: key))
        }
    }

    /// The first check of an image that failed, reported after the rest is shown; else `nil`.
    public var verificationFailure: UpdateError? { images.lazy.compactMap(\.image.verificationFailure).first }
}

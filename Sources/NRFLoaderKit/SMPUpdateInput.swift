import Checksums
package import MCUbootImage
package import MCUbootPackage
package import SMP

/// What an SMP update sends: one signed MCUboot image, or every image of an nRF Connect SDK `dfu_application.zip`,
/// each to its image number.
package struct SMPUpdateInput: Sendable {
    /// One image and where it goes.
    package struct Image: Sendable {
        /// The image number (the upload's `image` field).
        package var number: Int
        /// The entry's name in the package, or the file's name for a lone image.
        package var name: String
        /// The checked image.
        package var image: MCUbootImage
    }

    /// The input as the user named it.
    package var name: String
    /// The images, in the order they are sent.
    package var images: [Image]
    /// Whether the input is a package (its output names each image) rather than a lone image (whose output is as
    /// it always was).
    package var isPackage: Bool

    /// A lone image, sent to image `number`.
    package init(image: MCUbootImage, number: Int = 0) {
        name = image.file
        images = [Image(number: number, name: image.file, image: image)]
        isPackage = false
    }

    /// The images of a package, in manifest order.
    package init(package: MCUbootPackage) {
        name = package.archive
        images = package.images.map { Image(number: $0.imageIndex, name: $0.file, image: $0.image) }
        isPackage = true
    }

    /// The images as the SMP machine takes them.
    ///
    /// - Throws: ``MCUbootImageError/missingHash(file:)`` for an image without a SHA-256 TLV.
    package func uploads() throws -> [SMPImageUpload] {
        try images.map { entry in
            guard let hash = entry.image.storedHash else { throw MCUbootImageError.missingHash(file: entry.image.file) }
            return SMPImageUpload(
                image: entry.number, bytes: entry.image.bytes, hash: hash, fileSHA256: SHA256.hash(entry.image.bytes))
        }
    }

    /// The highest image number plus one: how many images a device needs to take the input.
    package var imageCount: Int { (images.map(\.number).max() ?? 0) + 1 }
}

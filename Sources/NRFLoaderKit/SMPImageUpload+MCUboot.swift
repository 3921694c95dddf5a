import Checksums
package import MCUbootImage
package import MCUbootPackage
package import SMP

extension SMPImageUpload {
    /// A checked MCUboot image as the SMP update sends it.
    ///
    /// - Parameters:
    ///   - image: The image, its hash verified.
    ///   - number: The image number it goes to.
    ///   - name: Its name in events: the package entry's, or the file's.
    /// - Throws: ``MCUbootImageError/missingHash(file:)`` for an image without a SHA-256 TLV.
    package init(_ image: MCUbootImage, number: Int, name: String) throws(MCUbootImageError) {
        guard let hash = image.storedHash else { throw .missingHash(file: image.file) }
        self.init(
            image: number, bytes: image.bytes, hash: hash, fileSHA256: SHA256.hash(image.bytes), name: name,
            version: image.header.version.description, fillsSlot: image.trailer != nil)
    }

    /// The images of a lone signed image, sent to image `number`.
    package static func images(of image: MCUbootImage, number: Int) throws(MCUbootImageError) -> [SMPImageUpload] {
        [try SMPImageUpload(image, number: number, name: image.file)]
    }

    /// The images of an nRF Connect SDK package, in manifest order.
    package static func images(of package: MCUbootPackage) throws(MCUbootImageError) -> [SMPImageUpload] {
        var images: [SMPImageUpload] = []
        for entry in package.images {
            images.append(try SMPImageUpload(entry.image, number: entry.imageIndex, name: entry.file))
        }
        return images
    }
}

extension [SMPImageUpload] {
    /// The highest image number plus one: how many images a device needs to take them.
    package var imageCount: Int { (map(\.image).max() ?? 0) + 1 }
}

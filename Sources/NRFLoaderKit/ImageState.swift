package import SMP

/// Every image slot an MCUboot device reports: the answer to the MCUmgr image group's state read.
public struct ImageState: Sendable, Hashable {
    /// The slots, in the device's order (image 0's slot 0 and slot 1 first); a slot without an image is left out.
    public let slots: [ImageSlot]

    /// The slot holding the image with this SHA-256 hash, or `nil` when none does.
    ///
    /// - Parameter hash: The image's hash, 32 bytes.
    /// - Returns: The first slot whose hash it is.
    public func slot(withHash hash: [UInt8]) -> ImageSlot? {
        slots.first { $0.hash == hash }
    }

    /// The running image of image `image` (0 by default), or `nil` when the device reports none.
    ///
    /// - Parameter image: The image number.
    /// - Returns: The active slot of that image.
    public func activeSlot(image: Int = 0) -> ImageSlot? {
        slots.first { $0.image == image && $0.isActive }
    }

    package init(_ response: ImageStateResponse) {
        slots = response.slots.map(ImageSlot.init)
    }
}

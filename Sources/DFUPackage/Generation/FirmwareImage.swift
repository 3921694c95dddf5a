/// A bare firmware image to make a DFU part from: the `.bin` bytes and what kind of image they are.
///
/// A SoftDevice with bootloader keeps its two halves apart, so the sizes the init packet declares (`sd_size`,
/// `bl_size`) always add up to the image; the transferred image is their concatenation, SoftDevice first.
package enum FirmwareImage: Sendable, Equatable {
    /// An application.
    case application([UInt8])
    /// A SoftDevice (on nRF52, the `.bin` starts at 0x1000, after the MBR).
    case softdevice([UInt8])
    /// A bootloader.
    case bootloader([UInt8])
    /// A SoftDevice and a bootloader sent as one image.
    case softdeviceBootloader(softdevice: [UInt8], bootloader: [UInt8])

    /// Splits a concatenated SoftDevice-with-bootloader image, such as nrfutil's `sd_bl.bin`.
    ///
    /// - Parameters:
    ///   - image: The SoftDevice followed by the bootloader.
    ///   - softdeviceSize: The SoftDevice's size in bytes (`sd_size`); the rest is the bootloader.
    ///   - file: The image's display name, for errors.
    /// - Returns: The image with its halves apart.
    /// - Throws: `imageSizeMismatch` when `softdeviceSize` is negative or leaves no bootloader bytes.
    package static func softdeviceBootloader(
        _ image: [UInt8],
        softdeviceSize: Int,
        file: String
    ) throws(DFUPackageError) -> FirmwareImage {
        guard softdeviceSize >= 0, softdeviceSize < image.count else {
            throw .imageSizeMismatch(file: file, actual: image.count, declared: softdeviceSize)
        }
        return .softdeviceBootloader(
            softdevice: Array(image[..<softdeviceSize]), bootloader: Array(image[softdeviceSize...]))
    }

    /// The manifest key such an image is listed under.
    package var imageType: DFUPackage.ImageType {
        switch self {
        case .application: .application
        case .softdevice: .softdevice
        case .bootloader: .bootloader
        case .softdeviceBootloader: .softdeviceBootloader
        }
    }

    /// The bytes transferred: the image, or the SoftDevice followed by the bootloader.
    package var bytes: [UInt8] {
        switch self {
        case .application(let bytes), .softdevice(let bytes), .bootloader(let bytes): bytes
        case .softdeviceBootloader(let softdevice, let bootloader): softdevice + bootloader
        }
    }

    /// How ``bytes`` divide into SoftDevice, bootloader and application bytes.
    package var sizes: DFUPackage.ImageSizes {
        switch self {
        case .application(let bytes): DFUPackage.ImageSizes(application: bytes.count)
        case .softdevice(let bytes): DFUPackage.ImageSizes(softdevice: bytes.count)
        case .bootloader(let bytes): DFUPackage.ImageSizes(bootloader: bytes.count)
        case .softdeviceBootloader(let softdevice, let bootloader):
            DFUPackage.ImageSizes(softdevice: softdevice.count, bootloader: bootloader.count)
        }
    }

    /// The pieces the bootloader places separately, with their kinds: one, or two for SoftDevice with bootloader.
    var pieces: [(bytes: [UInt8], imageType: DFUPackage.ImageType)] {
        switch self {
        case .application(let bytes): [(bytes, .application)]
        case .softdevice(let bytes): [(bytes, .softdevice)]
        case .bootloader(let bytes): [(bytes, .bootloader)]
        case .softdeviceBootloader(let softdevice, let bootloader):
            [(softdevice, .softdevice), (bootloader, .bootloader)]
        }
    }

    /// Returns `bytes` padded with 0xFF (erased flash) to a multiple of 4, as nrfutil's `nRFHex.size()` rounds
    /// every image it converts from HEX up to a whole word.
    ///
    /// - Parameter bytes: An image of any length.
    /// - Returns: The image, followed by 0–3 bytes of 0xFF.
    package static func paddedToWord(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0xFF, count: (4 - bytes.count % 4) % 4)
    }
}

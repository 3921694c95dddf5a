/// What a firmware part replaces; decides the legacy Start DFU image type and size packet (§1.5, §1.6).
public enum ImageType: Sendable, Equatable, CustomStringConvertible {
    /// A SoftDevice alone (legacy image type `0x01`).
    case softDevice
    /// A bootloader alone (legacy image type `0x02`).
    case bootloader
    /// A SoftDevice immediately followed by a bootloader in one image (legacy image type `0x03`).
    case softDeviceAndBootloader(softDeviceSize: Int, bootloaderSize: Int)
    /// An application (legacy image type `0x04`).
    case application

    /// The legacy Start DFU image-type bit field: SoftDevice `0x01`, bootloader `0x02`, application `0x04`.
    var legacyImageTypeBits: UInt8 {
        switch self {
        case .softDevice: 0x01
        case .bootloader: 0x02
        case .softDeviceAndBootloader: 0x03
        case .application: 0x04
        }
    }

    /// The lowercase name used in progress and summaries.
    public var description: String {
        switch self {
        case .softDevice: "softdevice"
        case .bootloader: "bootloader"
        case .softDeviceAndBootloader: "softdevice+bootloader"
        case .application: "application"
        }
    }
}

/// One image of an update with its init packet, as the package reader extracted it.
public struct FirmwarePart: Sendable, Equatable {
    /// What the image replaces.
    public let imageType: ImageType
    /// The init packet (`.dat`): protobuf for Secure DFU, a raw struct or 2-byte CRC-16 for legacy DFU.
    public let initPacket: [UInt8]
    /// The firmware image (`.bin`), in payload bytes.
    public let image: [UInt8]

    /// Creates a part, checking what every bootloader requires of an image.
    ///
    /// - Parameters:
    ///   - imageType: What the image replaces.
    ///   - initPacket: The init packet; may be empty only for legacy targets without a Version characteristic.
    ///   - image: The firmware image.
    /// - Throws: ``DFUError/invalidFirmware(_:)`` if the image is empty, not a multiple of 4 bytes (every
    ///   bootloader programs words: §1.9, §2.5), or its SoftDevice and bootloader sizes do not add up to it.
    public init(imageType: ImageType, initPacket: [UInt8], image: [UInt8]) throws(DFUError) {
        guard !image.isEmpty else { throw .invalidFirmware(.emptyImage(imageType)) }
        guard image.count % 4 == 0 else { throw .invalidFirmware(.imageNotWordAligned(imageType, size: image.count)) }
        if case .softDeviceAndBootloader(let softDeviceSize, let bootloaderSize) = imageType {
            guard softDeviceSize > 0, bootloaderSize > 0, softDeviceSize % 4 == 0, bootloaderSize % 4 == 0,
                softDeviceSize + bootloaderSize == image.count
            else {
                throw .invalidFirmware(
                    .componentSizesMismatch(
                        softDeviceSize: softDeviceSize, bootloaderSize: bootloaderSize, imageSize: image.count))
            }
        }
        self.imageType = imageType
        self.initPacket = initPacket
        self.image = image
    }
}

/// The parts of one update, sent in order, each in its own connection to the bootloader.
public struct DFUFirmware: Sendable, Equatable {
    /// The parts: SoftDevice and/or bootloader first, application last (dfu-protocols.md §4.3).
    public let parts: [FirmwarePart]

    /// Creates an update from its parts.
    ///
    /// - Parameter parts: At least one part, in sending order.
    /// - Throws: ``DFUError/invalidFirmware(_:)`` if `parts` is empty.
    public init(parts: [FirmwarePart]) throws(DFUError) {
        guard !parts.isEmpty else { throw .invalidFirmware(.noParts) }
        self.parts = parts
    }
}

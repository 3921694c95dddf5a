/// What a firmware part replaces; decides the legacy Start DFU image type and size packet (§1.5, §1.6).
package enum ImageType: Sendable, Equatable, CustomStringConvertible {
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
    package var description: String {
        switch self {
        case .softDevice: "softdevice"
        case .bootloader: "bootloader"
        case .softDeviceAndBootloader: "softdevice+bootloader"
        case .application: "application"
        }
    }
}

/// The firmware of an nRF5 DFU update as the engine sends it.
///
/// Its parts go in order, each in its own connection to the bootloader. `NRFLoaderKit`'s `Firmware` makes one from
/// any input.
///
/// An update generated from a bare image (a `.hex`, `.bin` or catalog entry without `--dfu`) may carry the same
/// images twice, once with Secure and once with legacy init packets: the controller then sends the parts whose
/// init packets suit the DFU service it finds on connect (testrig.md: a Secure init packet sent to a legacy
/// bootloader is read as a SoftDevice count).
package struct DFUFirmware: Sendable, Equatable {
    /// The parts: SoftDevice and/or bootloader first, application last (dfu-protocols.md §4.3).
    ///
    /// With variants, the Secure ones if there are, else the legacy ones.
    package let parts: [DFUFirmware.Part]
    /// The parts by the protocol their init packets are for; empty when the init packets are the package's own
    /// and go to whatever bootloader is found (the protocol was chosen by the user or the package).
    package let variants: [DFUProtocol: [DFUFirmware.Part]]

    /// Creates an update from its parts.
    ///
    /// - Parameter parts: At least one part, in sending order.
    /// - Throws: ``DFUError/invalidFirmware(_:)`` if `parts` is empty.
    package init(parts: [DFUFirmware.Part]) throws(DFUError) {
        guard !parts.isEmpty else { throw .invalidFirmware(.noParts) }
        self.parts = parts
        self.variants = [:]
    }

    /// Creates an update whose init packets follow the bootloader found: the same images with Secure and with
    /// legacy init packets, either of which may be missing.
    ///
    /// - Parameters:
    ///   - secure: The parts with Secure DFU init packets, if they could be made.
    ///   - legacy: The parts with legacy DFU init packets, if they could be made.
    /// - Throws: ``DFUError/invalidFirmware(_:)`` if neither is given, one is empty, or they hold other images.
    package init(secure: [DFUFirmware.Part]?, legacy: [DFUFirmware.Part]?) throws(DFUError) {
        guard let primary = secure ?? legacy, !primary.isEmpty, legacy?.isEmpty != true else {
            throw .invalidFirmware(.noParts)
        }
        if let secure, let legacy,
            secure.map({ [$0.image.count] }) != legacy.map({ [$0.image.count] })
                || zip(secure, legacy).contains(where: { $0.image != $1.image || $0.imageType != $1.imageType })
        {
            throw .invalidFirmware(.variantsDiffer)
        }
        parts = primary
        var variants: [DFUProtocol: [DFUFirmware.Part]] = [:]
        variants[.secure] = secure
        variants[.legacy] = legacy
        self.variants = variants
    }

    /// The parts to send to a bootloader of `dfuProtocol`, or `nil` when the update has no init packets for it.
    ///
    /// - Parameter dfuProtocol: The protocol of the bootloader found.
    /// - Returns: The parts.
    package func parts(for dfuProtocol: DFUProtocol) -> [DFUFirmware.Part]? {
        variants.isEmpty ? parts : variants[dfuProtocol]
    }
}

extension DFUFirmware {
    /// One image of an update with its init packet, as the engine sends it.
    package struct Part: Sendable, Equatable {
        /// What the image replaces.
        package let imageType: ImageType
        /// The init packet (`.dat`): protobuf for Secure DFU, a raw struct or 2-byte CRC-16 for legacy DFU.
        package let initPacket: [UInt8]
        /// The firmware image (`.bin`), in payload bytes.
        package let image: [UInt8]

        /// Creates a part, checking what every bootloader requires of an image.
        ///
        /// - Parameters:
        ///   - imageType: What the image replaces.
        ///   - initPacket: The init packet; may be empty only for legacy targets without a Version characteristic.
        ///   - image: The firmware image.
        /// - Throws: ``DFUError/invalidFirmware(_:)`` if the image is empty, not a multiple of 4 bytes (every
        ///   bootloader programs words: §1.9, §2.5), or its SoftDevice and bootloader sizes do not add up to it.
        package init(imageType: ImageType, initPacket: [UInt8], image: [UInt8]) throws(DFUError) {
            guard !image.isEmpty else { throw .invalidFirmware(.emptyImage(imageType)) }
            guard image.count % 4 == 0 else {
                throw .invalidFirmware(.imageNotWordAligned(imageType, size: image.count))
            }
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
}

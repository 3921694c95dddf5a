/// One firmware image in the catalog, with its verified bytes.
package struct CatalogEntry: Sendable, Equatable {
    /// What part of the device's flash an image replaces.
    package enum ImageType: String, Sendable, CaseIterable {
        case application
        case softdevice
        case bootloader
        case softdeviceBootloader = "softdevice+bootloader"
    }

    /// What a legacy DFU (SDK 7–11) init packet needs (dfu-protocols.md §1.7).
    package struct LegacyDFU: Sendable, Equatable {
        /// 0xFFFF accepts any device type.
        package var deviceType: UInt16
        /// 0xFFFF accepts any revision.
        package var deviceRevision: UInt16
        /// 0xFFFFFFFF accepts any version.
        package var applicationVersion: UInt32
        /// SoftDevice firmware ids (FWID) the image runs on; 0xFFFE accepts any.
        package var softdeviceIDs: [UInt16]

        /// Creates the legacy requirements.
        ///
        /// - Parameters:
        ///   - deviceType: The device type, 0xFFFF for any.
        ///   - deviceRevision: The device revision, 0xFFFF for any.
        ///   - applicationVersion: The application version, 0xFFFFFFFF for any.
        ///   - softdeviceIDs: The SoftDevice firmware ids accepted.
        package init(deviceType: UInt16, deviceRevision: UInt16, applicationVersion: UInt32, softdeviceIDs: [UInt16]) {
            self.deviceType = deviceType
            self.deviceRevision = deviceRevision
            self.applicationVersion = applicationVersion
            self.softdeviceIDs = softdeviceIDs
        }
    }

    /// What a Secure DFU (SDK 12–17) init command needs.
    package struct SecureDFU: Sendable, Equatable {
        /// The bootloader's hardware version (52 for nRF52832 and nRF52840 in Nordic's examples).
        package var hardwareVersion: UInt32
        /// Compared by the bootloader with the installed application's version.
        package var firmwareVersion: UInt32
        /// SoftDevice firmware ids the image runs on.
        package var softdeviceRequired: [UInt16]

        /// Creates the Secure DFU requirements.
        ///
        /// - Parameters:
        ///   - hardwareVersion: The bootloader's hardware version.
        ///   - firmwareVersion: The image's firmware version.
        ///   - softdeviceRequired: The SoftDevice firmware ids accepted.
        package init(hardwareVersion: UInt32, firmwareVersion: UInt32, softdeviceRequired: [UInt16]) {
            self.hardwareVersion = hardwareVersion
            self.firmwareVersion = firmwareVersion
            self.softdeviceRequired = softdeviceRequired
        }
    }

    /// What an MCUboot (nRF Connect SDK) update over SMP needs: the file is the signed MCUboot image itself.
    package struct MCUbootDFU: Sendable, Equatable {
        /// The image number the device updates (0 for the application core, 1 for the nRF5340 network core).
        package var imageNumber: Int

        /// Creates the MCUboot requirements.
        ///
        /// - Parameter imageNumber: The image number, 0 for a single-image device.
        package init(imageNumber: Int) {
            self.imageNumber = imageNumber
        }
    }

    package var id: String
    package var title: String
    package var description: String
    package var version: String
    package var boards: [String]
    package var chip: String
    package var type: ImageType
    /// The image file as the catalog names it, relative to the catalog.
    package var file: String
    package var size: Int
    /// The SHA-256 of the image, 64 lowercase hex digits.
    package var sha256: String
    /// The flash address of the image's first byte.
    package var loadAddress: UInt32
    /// The SoftDevice the image expects, as free text ("S132 7.2.0"), if any.
    package var softdevice: String?
    package var legacyDFU: LegacyDFU?
    package var secureDFU: SecureDFU?
    /// Set for a signed MCUboot image, which goes over SMP rather than nRF5 DFU.
    package var mcuboot: MCUbootDFU?
    /// Whether the entry comes from the catalog compiled into the executable.
    package var isEmbedded: Bool
    /// The image's bytes, checked against ``size`` and ``sha256``.
    package var image: [UInt8]
}

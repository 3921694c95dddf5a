package import Catalog

/// An entry of the firmware catalog embedded in the library: example images for Nordic development kits, each
/// loadable by its ``id`` with ``Firmware/init(_:options:)``.
public struct CatalogItem: Sendable {
    /// What the init packets of a legacy DFU (nRF5 SDK 7 to 11) update of the entry hold.
    public struct LegacyDFUFields: Sendable, Equatable {
        /// The device type the bootloader accepts (0xFFFF: any).
        public let deviceType: UInt16
        /// The device revision the bootloader accepts (0xFFFF: any).
        public let deviceRevision: UInt16
        /// The application version.
        public let applicationVersion: UInt32
        /// The SoftDevice firmware ids the image runs on.
        public let softDeviceIDs: [UInt16]
    }

    /// What the init packets of a Secure DFU (nRF5 SDK 12 and later) update of the entry hold.
    public struct SecureDFUFields: Sendable, Equatable {
        /// The hardware version (`hw_version`).
        public let hardwareVersion: UInt32
        /// The firmware version (`fw_version`).
        public let firmwareVersion: UInt32
        /// The SoftDevice firmware ids the image needs (`sd_req`).
        public let softDeviceRequirements: [UInt16]
    }

    /// The id, such as `blinky-pca10040`.
    public let id: String
    /// A one-line title.
    public let title: String
    /// A longer description: what the firmware does and how to see it work.
    public let description: String
    /// The firmware's version.
    public let version: String
    /// The boards it runs on, such as `PCA10040`.
    public let boards: [String]
    /// The chip, such as `nRF52832`.
    public let chip: String
    /// What part of the flash the image replaces: `application`, `softdevice`, `bootloader` or
    /// `softdevice+bootloader`.
    public let imageType: String
    /// The image's file name in the catalog.
    public let file: String
    /// Whether the image is embedded in the library (rather than read from a catalog file).
    public let isEmbedded: Bool
    /// The update protocols it can be sent with: `secure`, `legacy` (nRF5 DFU) or `smp` (MCUboot).
    public let protocols: [String]
    /// The image's size in bytes.
    public let size: Int
    /// The image's SHA-256, as lowercase hexadecimal digits.
    public let sha256: String
    /// The flash address of the image's first byte.
    public let loadAddress: UInt32
    /// The SoftDevice the image needs, such as `S132 7.2.0`, or `nil` for none.
    public let softDevice: String?
    /// The legacy DFU init packet fields, or `nil` when the entry is not sent over legacy DFU.
    public let legacyDFU: LegacyDFUFields?
    /// The Secure DFU init packet fields, or `nil` when the entry is not sent over Secure DFU.
    public let secureDFU: SecureDFUFields?
    /// For a signed MCUboot image sent over SMP: the image number it updates; else `nil`.
    public let mcubootImageNumber: Int?

    package init(_ entry: CatalogEntry) {
        var protocols: [String] = []
        if entry.secureDFU != nil { protocols.append("secure") }
        if entry.legacyDFU != nil { protocols.append("legacy") }
        if entry.mcuboot != nil { protocols.append("smp") }
        id = entry.id
        title = entry.title
        description = entry.description
        version = entry.version
        boards = entry.boards
        chip = entry.chip
        imageType = entry.type.rawValue
        file = entry.file
        isEmbedded = entry.isEmbedded
        self.protocols = protocols
        size = entry.size
        sha256 = entry.sha256
        loadAddress = entry.loadAddress
        softDevice = entry.softdevice
        legacyDFU = entry.legacyDFU.map {
            LegacyDFUFields(
                deviceType: $0.deviceType, deviceRevision: $0.deviceRevision, applicationVersion: $0.applicationVersion,
                softDeviceIDs: $0.softdeviceIDs)
        }
        secureDFU = entry.secureDFU.map {
            SecureDFUFields(
                hardwareVersion: $0.hardwareVersion, firmwareVersion: $0.firmwareVersion,
                softDeviceRequirements: $0.softdeviceRequired)
        }
        mcubootImageNumber = entry.mcuboot?.imageNumber
    }

    /// The embedded catalog's entries, with those of ``FirmwareOptions/catalogFile``.
    ///
    /// - Parameter options: The catalog file to add, if any.
    /// - Returns: The entries, in catalog order.
    /// - Throws: ``UpdateError`` for a catalog file that cannot be read or parsed.
    public static func all(options: FirmwareOptions = FirmwareOptions()) throws(UpdateError) -> [CatalogItem] {
        let catalog = try UpdateError.wrapping { try FirmwareCatalogLoader.load(options) }
        return catalog.entries.map(CatalogItem.init)
    }
}

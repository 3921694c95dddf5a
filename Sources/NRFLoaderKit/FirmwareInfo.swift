import Catalog
import Checksums
import DFUPackage
import DFUSigning
import FoundationEssentials
import HexConverter
import MCUbootImage
import MCUbootPackage

/// Everything about firmware that `nrfloader info` shows: a catalog entry, an nRF5 DFU package, an nRF Connect SDK
/// DFU package, a signed MCUboot image, an Intel HEX file or a binary image.
///
/// Inspection reads the input completely and decodes it, checking what can be checked (an MCUboot image's SHA-256
/// TLV, and signatures with ``FirmwareOptions/verificationKeyFile``). A failed check does not stop the inspection:
/// it is kept as ``verificationFailure``, so that a caller can show the firmware and then report why it is bad.
public enum FirmwareInfo: Sendable {
    /// An entry of the catalog.
    case catalogEntry(CatalogEntryInfo)
    /// An nRF5 DFU package (`.zip`).
    case dfuPackage(DFUPackageInfo)
    /// An nRF Connect SDK DFU package (`dfu_application.zip`).
    case mcubootPackage(MCUbootPackageInfo)
    /// A signed MCUboot image.
    case mcubootImage(MCUbootImageInfo)
    /// An Intel HEX file.
    case intelHex(IntelHexInfo)
    /// A binary image.
    case binary(BinaryImageInfo)

    /// Inspects firmware: `input` is a path, `-` for standard input, or the id of a catalog entry.
    ///
    /// - Parameters:
    ///   - input: A path, `-`, or a catalog id.
    ///   - options: The catalog to search, and the key to check signatures with
    ///     (``FirmwareOptions/verificationKeyFile``: an init packet key, PEM or Nordic's form, for a DFU package;
    ///     an imgtool key, PEM, private or public, for MCUboot images).
    /// - Throws: ``UpdateError`` for an input that cannot be read or decoded, an unknown catalog id, or an unreadable
    ///   key; a failed check is ``verificationFailure`` instead.
    public init(inspecting input: String, options: FirmwareOptions = FirmwareOptions()) throws(UpdateError) {
        self = try UpdateError.wrapping { try Self.inspect(input, options: options) }
    }

    /// The first check that failed (an MCUboot hash, a signature), to report after showing the rest; else `nil`.
    public var verificationFailure: UpdateError? {
        switch self {
        case .catalogEntry(let info): info.mcubootImage?.verificationFailure
        case .dfuPackage(let info): info.verificationFailure
        case .mcubootPackage(let info): info.verificationFailure
        case .mcubootImage(let info): info.verificationFailure
        case .intelHex, .binary: nil
        }
    }

    private static func inspect(_ input: String, options: FirmwareOptions) throws -> FirmwareInfo {
        let isFile = input == "-" || FileManager.default.fileExists(atPath: input)
        if !isFile {
            let catalog = try FirmwareCatalogLoader.load(options)
            guard let entry = catalog.entry(id: input) else {
                throw CatalogError.unknownID(input, known: catalog.entries.map(\.id))
            }
            return .catalogEntry(try catalogEntry(entry, options: options))
        }
        let file = try InputFile(path: input)
        let bytes = try file.readAll()
        let name = file.displayName
        switch ImageFormat(path: input, contents: bytes) {
        case .package where MCUbootPackage.isPackage(bytes):
            let package = try MCUbootPackage(zip: bytes, archive: name)
            return .mcubootPackage(MCUbootPackageInfo(package: package, key: try options.mcubootVerificationKey()))
        case .package:
            let package = try DFUPackage(zip: bytes, name: name)
            let keyFile = options.verificationKeyFile
            let verifier = try keyFile.map { path in
                try InitPacketVerifier(keyFile: try InputFile(path: path).readAll(), file: path)
            }
            return .dfuPackage(try DFUPackageInfo(package: package, verifier: verifier, keyFile: keyFile))
        case .intelHex:
            return .intelHex(try intelHex(bytes, name: name))
        case .binary where bytes.starts(with: [0x3D, 0xB8, 0xF3, 0x96]):
            let image = try MCUbootImage(bytes: bytes, file: name)
            return .mcubootImage(MCUbootImageInfo(image: image, key: try options.mcubootVerificationKey()))
        case .binary:
            return .binary(
                BinaryImageInfo(
                    file: name, size: bytes.count, sha256: SHA256.hash(bytes),
                    vectorTable: .of(bytes, loadAddress: nil)))
        }
    }

    private static func catalogEntry(_ entry: CatalogEntry, options: FirmwareOptions) throws -> CatalogEntryInfo {
        guard entry.mcuboot != nil else {
            return CatalogEntryInfo(
                item: CatalogItem(entry), vectorTable: .of(entry.image, loadAddress: entry.loadAddress),
                mcubootImage: nil)
        }
        let image = try MCUbootImage(bytes: entry.image, file: entry.file)
        let headerSize = image.header.headerSize
        return CatalogEntryInfo(
            item: CatalogItem(entry),
            vectorTable: .of(
                Array(entry.image.dropFirst(headerSize)), loadAddress: entry.loadAddress + UInt32(headerSize)),
            mcubootImage: MCUbootImageInfo(image: image, key: try options.mcubootVerificationKey()))
    }

    private static func intelHex(_ bytes: [UInt8], name: String) throws -> IntelHexInfo {
        let all = try IntelHexParser.parse(bytes, source: name)
        let dfu = try IntelHexParser.parse(bytes, source: name, window: .nordic)
        guard let base = dfu.lowestAddress else {
            throw HexConverterError.noData(source: name, range: .nordic)
        }
        let image = dfu.binary(alignment: 4)
        return IntelHexInfo(
            file: name, regions: all.regions.map(MemoryRegion.init),
            startAddress: all.startAddress.map(
                HexStartAddress.init), imageBaseAddress: base, imageSize: image.count, imageSHA256: SHA256.hash(image),
            vectorTable: .of(image, loadAddress: base))
    }
}

internal import FoundationEssentials

/// The parts of nrfutil's `manifest.json` this module reads.
///
/// A key that neither nrfutil nor adafruit-nrfutil writes is an error, not ignored: a part under a misspelt or
/// renamed key (`app` for `application`) would otherwise be skipped while the other parts are sent.
///
/// Secure packages (nrfutil ≥ 1.0) have only `bin_file` and `dat_file` per image, plus
/// `info_read_only_metadata {bl_size, sd_size}` for `softdevice_bootloader`. Legacy packages (nrfutil 0.5.x,
/// adafruit-nrfutil) add a top-level `dfu_version` (a float such as 0.5), an `init_packet_data` object per image,
/// and `sd_size`/`bl_size` directly in `softdevice_bootloader`.
struct Manifest: Decodable {
    /// One image entry.
    struct Image: Decodable {
        /// `init_packet_data` of legacy packages; every field optional.
        ///
        /// Numbers are decoded as `Int` and narrowed by the caller: FoundationEssentials' `JSONDecoder` reports a
        /// number out of range for `UInt16` as "not valid JSON" with an empty coding path, which would hide where
        /// the bad value is.
        struct InitPacketData: Decodable {
            var applicationVersion: Int?
            var deviceRevision: Int?
            var deviceType: Int?
            var firmwareCRC16: Int?
            var softdeviceReq: [Int]?

            enum CodingKeys: String, CodingKey {
                case applicationVersion = "application_version"
                case deviceRevision = "device_revision"
                case deviceType = "device_type"
                case firmwareCRC16 = "firmware_crc16"
                case softdeviceReq = "softdevice_req"
            }
        }

        /// `info_read_only_metadata` of secure SD+BL packages.
        struct SizeMetadata: Decodable {
            var blSize: Int
            var sdSize: Int

            enum CodingKeys: String, CodingKey {
                case blSize = "bl_size"
                case sdSize = "sd_size"
            }
        }

        var binFile: String
        var datFile: String
        var initPacketData: InitPacketData?
        var infoReadOnlyMetadata: SizeMetadata?
        var sdSize: Int?
        var blSize: Int?

        enum CodingKeys: String, CodingKey {
            case binFile = "bin_file"
            case datFile = "dat_file"
            case initPacketData = "init_packet_data"
            case infoReadOnlyMetadata = "info_read_only_metadata"
            case sdSize = "sd_size"
            case blSize = "bl_size"
        }
    }

    var dfuVersion: Double?
    var application: Image?
    var bootloader: Image?
    var softdevice: Image?
    var softdeviceBootloader: Image?

    enum CodingKeys: String, CodingKey {
        case dfuVersion = "dfu_version"
        case application
        case bootloader
        case softdevice
        case softdeviceBootloader = "softdevice_bootloader"
    }

    /// The `{"manifest": …}` wrapper.
    private struct File: Decodable {
        var manifest: Manifest
    }

    /// Whether this is a legacy package: `dfu_version` or any `init_packet_data` present.
    var isLegacy: Bool {
        dfuVersion != nil
            || [application, bootloader, softdevice, softdeviceBootloader].contains { $0?.initPacketData != nil }
    }

    /// The entry for `type`.
    func image(_ type: DFUPackage.ImageType) -> Image? {
        switch type {
        case .softdeviceBootloader: softdeviceBootloader
        case .softdevice: softdevice
        case .bootloader: bootloader
        case .application: application
        }
    }

    /// Decodes `manifest.json`.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - archive: The archive's display name, for errors.
    /// - Throws: `invalidManifest`.
    init(json bytes: [UInt8], archive: String) throws(DFUPackageError) {
        do {
            _ = try JSONDecoder().decode(KnownKeys.self, from: Data(bytes))
            self = try JSONDecoder().decode(File.self, from: Data(bytes)).manifest
        } catch let error as UnknownKey {
            throw .invalidManifest(archive: archive, problem: .unknownKey(path: error.path, known: error.known))
        } catch let error as DecodingError {
            throw .invalidManifest(archive: archive, problem: Self.problem(error))
        } catch {
            throw .invalidManifest(archive: archive, problem: .notJSON)
        }
    }

    private static func problem(_ error: DecodingError) -> ManifestProblem {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (codingPath + (last.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? key.stringValue
            }
            .joined(separator: ".")
            .replacing(".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return .missingKey(path: path(context.codingPath, key))
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            // An error at the top level means the document itself is not a JSON object.
            return context.codingPath.isEmpty ? .notJSON : .invalidValue(path: path(context.codingPath))
        @unknown default: return .notJSON
        }
    }
}

/// A walk over `manifest.json` that refuses any key nrfutil (0.5.x and 6.x) and adafruit-nrfutil never write.
///
/// The known keys per level are those of the vendors' manifest classes: the `manifest` wrapper; the four image
/// keys and `dfu_version`; an image's files, `init_packet_data`, `info_read_only_metadata` (Secure SD+BL) and
/// `sd_size`/`bl_size` (legacy SD+BL); the `init_packet_data` fields of nrfutil 0.5.x; and the two sizes in
/// `info_read_only_metadata`. A value of the wrong type is left for the typed decoding to report.
private struct KnownKeys: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let top = ["manifest"]
    static let manifest = ["application", "bootloader", "dfu_version", "softdevice", "softdevice_bootloader"]
    static let image = ["bin_file", "bl_size", "dat_file", "info_read_only_metadata", "init_packet_data", "sd_size"]
    static let initPacketData = [
        "application_version", "device_revision", "device_type", "ext_packet_id", "firmware_crc16", "firmware_hash",
        "firmware_length", "init_packet_ecds", "softdevice_req",
    ]
    static let sizeMetadata = ["bl_size", "sd_size"]

    init(from decoder: any Decoder) throws {
        let path = decoder.codingPath.map(\.stringValue)
        let known: [String]
        switch path.count {
        case 0: known = Self.top
        case 1: known = Self.manifest
        case 2: known = Self.image
        default: known = path.last == "init_packet_data" ? Self.initPacketData : Self.sizeMetadata
        }
        guard let container = try? decoder.container(keyedBy: Key.self) else { return }
        for key in container.allKeys {
            guard known.contains(key.stringValue) else {
                throw UnknownKey(path: (path + [key.stringValue]).joined(separator: "."), known: known)
            }
            let descends =
                path.count < 2 && key.stringValue != "dfu_version"
                || path.count == 2 && ["init_packet_data", "info_read_only_metadata"].contains(key.stringValue)
            // A null is the typed decoding's to judge (an absent part); only objects have keys to check.
            if descends, (try? container.decodeNil(forKey: key)) != true {
                _ = try container.decode(KnownKeys.self, forKey: key)
            }
        }
    }
}

/// Thrown by ``KnownKeys`` for a key outside the known set at its level.
private struct UnknownKey: Error {
    var path: String
    var known: [String]
}

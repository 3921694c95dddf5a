import FoundationEssentials
import NRFLoaderKit
import Synchronization

/// The firmware a job can send: the catalog's entries by id, and files sent to the station, each checked as
/// `upload` checks its input, by `upload-N` id.
final class FirmwareLibrary: Sendable {
    /// Firmware that loaded, and what the page shows of it before anything is sent.
    struct Entry: Sendable {
        let id: String
        let firmware: Firmware
        let size: Int
        let info: JSONValue
    }

    /// How many sent files are kept: the oldest goes when another arrives (running jobs keep their own copy).
    static let keptUploads = 8

    private let options: FirmwareOptions
    private let catalogItems: [CatalogItem]
    private let uploads = Mutex<(next: Int, entries: [Entry])>((1, []))

    init(options: FirmwareOptions) throws(UpdateError) {
        self.options = options
        catalogItems = try CatalogItem.all(options: options)
    }

    /// The catalog as `GET /api/catalog` lists it.
    var catalogJSON: JSONValue {
        .object(["schema": .int(JSONValue.schemaVersion), "firmware": .array(catalogItems.map(Self.json))])
    }

    /// The files sent to the station and still kept, oldest first.
    var uploadedEntries: [Entry] {
        uploads.withLock { $0.entries }
    }

    /// Checks a file as `upload FILE` would and keeps it.
    ///
    /// - Parameters:
    ///   - bytes: The file.
    ///   - name: Its name, as messages and events give it (its extension helps tell the format).
    /// - Returns: The kept entry.
    /// - Throws: `UpdateError`, with the message and exit status `upload` fails with.
    func add(_ bytes: [UInt8], name: String) throws(UpdateError) -> Entry {
        let firmware = try Firmware(bytes: bytes, name: name, options: options)
        var info = try Self.info(of: firmware, size: bytes.count)
        if firmware.isMCUboot && firmware.mcubootImage == nil, case .object(var members) = info {
            // An nRF Connect SDK package: its images, as `info` reads them from a file.
            members["parts"] = .array(try Self.packageImages(bytes, name: name))
            info = .object(members)
        }
        return uploads.withLock { state in
            let entry = Entry(id: "upload-\(state.next)", firmware: firmware, size: bytes.count, info: info)
            state.next += 1
            state.entries.append(entry)
            if state.entries.count > Self.keptUploads { state.entries.removeFirst() }
            return entry
        }
    }

    /// A sent file by id, or a catalog entry, loaded as `upload ID` loads it; `nil` for an unknown id.
    func entry(id: String) throws(UpdateError) -> Entry? {
        if let entry = uploads.withLock({ $0.entries.first { $0.id == id } }) { return entry }
        // Only the catalog's own ids: an arbitrary string would be read as a path on the station's disk.
        guard let item = catalogItems.first(where: { $0.id == id }) else { return nil }
        let firmware = try Firmware(item.id, options: options)
        return Entry(
            id: item.id, firmware: firmware, size: item.size, info: try Self.info(of: firmware, size: item.size))
    }

    /// What `GET /api/firmware/{id}` shows: the input's name, size, protocol and what it sends.
    private static func info(of firmware: Firmware, size: Int) throws(UpdateError) -> JSONValue {
        var members: [String: JSONValue] = [
            "schema": .int(JSONValue.schemaVersion), "name": .string(firmware.name), "size": .int(size),
            "protocol": .string(firmware.isMCUboot ? "smp" : "dfu"),
        ]
        if let image = firmware.mcubootImage {
            members["mcuboot"] = .object([
                "version": .string(image.version), "image_size": .int(image.imageSize),
                "load_address": .int(Int(image.loadAddress)), "flags": .array(image.flagNames.map { .string($0) }),
                "sha256": .optional(image.storedHash) { .string(hex($0)) },
            ])
            members["parts"] = .array([
                .object(["type": .string("image"), "size": .int(image.size), "init_packet_size": .int(0)])
            ])
        } else if !firmware.isMCUboot {
            // Init packets made as for the device, signatures checked: this fails as the update would.
            let parts = try firmware.dfuParts()
            members["parts"] = .array(
                parts.map {
                    .object([
                        "type": .string($0.type), "size": .int($0.size), "init_packet_size": .int($0.initPacketSize),
                    ])
                })
        } else {
            members["parts"] = .array([])
        }
        return .object(members)
    }

    /// The images of an nRF Connect SDK `dfu_application.zip`, each with its number, size and version.
    private static func packageImages(_ bytes: [UInt8], name: String) throws(UpdateError) -> [JSONValue] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nrfloader-serve-\(UUID().uuidString)")
        let file = folder.appendingPathComponent("package.zip")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try Data(bytes).write(to: file)
        } catch {
            throw UpdateError("'\(name)': cannot keep it for inspection: \(error)", exitStatus: .cannotCreate)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        guard case .mcubootPackage(let package) = try FirmwareInfo(inspecting: file.path) else { return [] }
        return package.images.map { image in
            .object([
                "type": .string("image \(image.imageIndex)" + (image.type.map { " (\($0))" } ?? "")),
                "size": .int(image.image.imageSize), "init_packet_size": .int(0),
                "version": .string(image.image.version),
            ])
        }
    }

    private static func json(_ item: CatalogItem) -> JSONValue {
        .object([
            "id": .string(item.id), "title": .string(item.title), "description": .string(item.description),
            "version": .string(item.version), "boards": .array(item.boards.map { .string($0) }),
            "chip": .string(item.chip), "image_type": .string(item.imageType), "size": .int(item.size),
            "sha256": .string(item.sha256), "protocols": .array(item.protocols.map { .string($0) }),
        ])
    }
}

/// Lowercase hex digits of `bytes`.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return text
}

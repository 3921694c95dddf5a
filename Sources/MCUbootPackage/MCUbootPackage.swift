import DFUPackage
package import MCUbootImage

/// An nRF Connect SDK `dfu_application.zip`: `manifest.json` and one signed MCUboot image per updatable image (the
/// application core as image 0, the nRF5340 network core as image 1, …).
///
/// The format is what sdk-nrf's `scripts/bootloader/generate_zip.py` writes, fed by `cmake/sysbuild/…dfu_zip…`:
/// `{"format-version": 0, "time": T, "name": N?, "files": [{…}, …]}`, each file entry the build's `key=value` pairs
/// for it (`image_index`, `slot_index_primary`, `slot_index_secondary`, `load_address`, `version_MCUBOOT` or
/// `version`, `board`, `soc`, `type`) plus `size`, `file` and `modtime`. The script writes a value as an integer
/// when it was given as `0x…` and as a string otherwise, so `image_index` is `"1"` in real packages; both forms are
/// read. Keys this reader does not use are passed over, as nRF Connect Device Manager does: the script takes any
/// key a build adds.
///
/// Every listed file must be in the archive, parse as an MCUboot image, and match its SHA-256 TLV; `size`, when
/// present, must be the entry's size.
package struct MCUbootPackage: Sendable, Equatable {
    /// One image of the package.
    package struct Image: Sendable, Equatable {
        /// The entry's name in the archive (`file`).
        package var file: String
        /// The image number the device stores it under (`image_index`; the upload's `image` field).
        package var imageIndex: Int
        /// `slot_index_primary` as the build wrote it (the partition's 1-based number), when present.
        package var slotIndexPrimary: Int?
        /// `slot_index_secondary`, when present.
        package var slotIndexSecondary: Int?
        /// `load_address`, when present.
        package var loadAddress: Int?
        /// `version_MCUBOOT` (the application) or `version` (the network core's firmware version), when present.
        package var version: String?
        /// `board`, when present.
        package var board: String?
        /// `soc`, when present.
        package var soc: String?
        /// `type` (`application` in every package sdk-nrf builds), when present.
        package var type: String?
        /// The signed image, its hash checked.
        package var image: MCUbootImage
    }

    /// The archive's name as the user gave it, for messages.
    package var archive: String
    /// `format-version`, when present.
    package var formatVersion: Int?
    /// `time` (seconds since 1970 when the package was made), when present.
    package var time: Int?
    /// `name`, the build's label for the update, when present.
    package var name: String?
    /// The images in manifest order.
    package var images: [Image]

    /// Reads and checks a package.
    ///
    /// - Parameters:
    ///   - bytes: The zip file.
    ///   - archive: Its name, for messages.
    ///   - verify: Run on each image after its hash check (a signature check with `--verify-key`).
    /// - Throws: ``MCUbootPackageError``; `verify`'s ``MCUbootImageError`` as ``MCUbootPackageError/image(_:)``.
    package init(
        zip bytes: [UInt8], archive: String,
        verify: (MCUbootImage) throws(MCUbootImageError) -> Void = { _ throws(MCUbootImageError) in }
    ) throws(MCUbootPackageError) {
        let zip: ZipArchive
        do { zip = try ZipArchive(bytes: bytes, name: archive) } catch { throw .zip(error) }
        guard let manifestBytes = zip.contents(of: "manifest.json") else { throw .missingManifest(archive: archive) }
        guard let manifest = ManifestValue.parse(manifestBytes), case .object = manifest else {
            throw .badManifest(archive: archive, field: "", problem: "is not a JSON object")
        }
        let fields = ManifestFields(archive: archive)
        self.archive = archive
        formatVersion = try fields.integer(manifest["format-version"], "format-version")
        time = try fields.integer(manifest["time"], "time")
        name = try fields.string(manifest["name"], "name")
        guard let list = manifest["files"] else {
            if manifest["manifest"] != nil { throw .nrfutilPackage(archive: archive) }
            throw .badManifest(archive: archive, field: "files", problem: "is missing")
        }
        guard case .array(let entries) = list else {
            throw .badManifest(archive: archive, field: "files", problem: "is \(list.kind), not an array")
        }
        guard !entries.isEmpty else { throw .badManifest(archive: archive, field: "files", problem: "is empty") }
        var images: [Image] = []
        for (index, entry) in entries.enumerated() {
            images.append(
                try Self.image(entry, at: "files[\(index)]", count: entries.count, zip: zip, fields: fields, verify))
        }
        for image in images where images.filter({ $0.imageIndex == image.imageIndex }).count > 1 {
            throw .duplicateImage(
                archive: archive, image: image.imageIndex,
                files: images.filter { $0.imageIndex == image.imageIndex }.map(\.file))
        }
        self.images = images
    }

    private static func image(
        _ entry: ManifestValue, at place: String, count: Int, zip: ZipArchive, fields: ManifestFields,
        _ verify: (MCUbootImage) throws(MCUbootImageError) -> Void
    ) throws(MCUbootPackageError) -> Image {
        guard case .object = entry else {
            throw .badManifest(archive: zip.name, field: place, problem: "is \(entry.kind), not an object")
        }
        guard let file = try fields.string(entry["file"], place + ".file") else {
            throw .badManifest(archive: zip.name, field: place + ".file", problem: "is missing")
        }
        var imageIndex = try fields.integer(entry["image_index"], place + ".image_index", in: 0...255)
        if imageIndex == nil {
            // A package of one image may leave the number out; with several, guessing could swap cores.
            guard count == 1 else {
                throw .badManifest(
                    archive: zip.name, field: place + ".image_index",
                    problem: "is missing; with \(count) files each must name its image")
            }
            imageIndex = 0
        }
        guard let contents = zip.contents(of: file) else {
            throw .missingFile(archive: zip.name, field: place + ".file", file: file)
        }
        if let size = try fields.integer(entry["size"], place + ".size"), size != contents.count {
            throw .badManifest(
                archive: zip.name, field: place + ".size",
                problem: "is \(size), but '\(file)' holds \(contents.count) bytes")
        }
        let image: MCUbootImage
        do {
            image = try MCUbootImage(bytes: contents, file: zip.name + "/" + file)
            try image.verifiedHash()
            try verify(image)
        } catch {
            throw .image(error)
        }
        let mcubootVersion = try fields.text(entry["version_MCUBOOT"], place + ".version_MCUBOOT")
        let coreVersion = try fields.text(entry["version"], place + ".version")
        return Image(
            file: file, imageIndex: imageIndex ?? 0,
            slotIndexPrimary: try fields.integer(entry["slot_index_primary"], place + ".slot_index_primary"),
            slotIndexSecondary: try fields.integer(entry["slot_index_secondary"], place + ".slot_index_secondary"),
            loadAddress: try fields.integer(entry["load_address"], place + ".load_address"),
            version: mcubootVersion ?? coreVersion,
            board: try fields.string(entry["board"], place + ".board"),
            soc: try fields.string(entry["soc"], place + ".soc"),
            type: try fields.string(entry["type"], place + ".type"), image: image)
    }

    /// Whether `bytes` look like an nRF Connect SDK package rather than an nrfutil one.
    ///
    /// That is a zip whose `manifest.json` is an object with a `files` list (nrfutil's has a `manifest` object).
    /// Nothing is checked beyond that.
    ///
    /// - Parameter bytes: The file.
    /// - Returns: `true` for an NCS package.
    package static func isPackage(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: [0x50, 0x4B]), let zip = try? ZipArchive(bytes: bytes, name: ""),
            let manifest = zip.contents(of: "manifest.json").flatMap(ManifestValue.parse)
        else { return false }
        guard case .array? = manifest["files"] else { return false }
        return manifest["manifest"] == nil
    }
}

/// Reads typed fields of the manifest, naming the field in every error.
private struct ManifestFields {
    var archive: String

    func string(_ value: ManifestValue?, _ field: String) throws(MCUbootPackageError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw .badManifest(archive: archive, field: field, problem: "is \(other.kind), not a string")
        }
    }

    /// A string or a number, as text (a version may be written either way).
    func text(_ value: ManifestValue?, _ field: String) throws(MCUbootPackageError) -> String? {
        switch value {
        case .integer(let number)?: return String(number)
        default: return try string(value, field)
        }
    }

    /// An integer written as a number, a decimal string (`"1"`) or a hex string (`"0x10000"`).
    func integer(_ value: ManifestValue?, _ field: String, in range: ClosedRange<Int> = 0...Int(UInt32.max))
        throws(MCUbootPackageError) -> Int?
    {
        let number: Int
        switch value {
        case nil, .null?: return nil
        case .integer(let given)?: number = given
        case .string(let text)?:
            let parsed =
                text.lowercased().hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text, radix: 10)
            guard let parsed else {
                throw .badManifest(archive: archive, field: field, problem: "is '\(text)', not an integer")
            }
            number = parsed
        case let other?:
            throw .badManifest(archive: archive, field: field, problem: "is \(other.kind), not an integer")
        }
        guard range.contains(number) else {
            throw .badManifest(
                archive: archive, field: field,
                problem: "is \(number), outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

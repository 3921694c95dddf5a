import NRFLoaderKit

/// `nrfloader info dfu_application.zip`: the package's manifest and, for each image, its manifest fields and what
/// `info IMAGE` shows of the image (with the signature check under `--verify-key`).
extension MCUbootPackageInfo {
    var json: JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "kind": .string("mcuboot_package"),
            "file": .string(file),
            "format_version": .optional(formatVersion) { .int($0) },
            "time": .optional(time) { .int($0) }, "name": .optional(name) { .string($0) },
            "images": .array(
                images.map { entry in
                    var image = entry.image.json
                    if case .object(var members) = image {
                        members["schema"] = nil
                        members["kind"] = nil
                        image = .object(members)
                    }
                    return .object([
                        "image_index": .int(entry.imageIndex), "file": .string(entry.file),
                        "type": .optional(entry.type) { .string($0) }, "board": .optional(entry.board) { .string($0) },
                        "soc": .optional(entry.soc) { .string($0) },
                        "slot_index_primary": .optional(entry.slotIndexPrimary) { .int($0) },
                        "slot_index_secondary": .optional(entry.slotIndexSecondary) { .int($0) },
                        "load_address": .optional(entry.loadAddress) { .int($0) },
                        "version": .optional(entry.version) { .string($0) }, "mcuboot": image,
                    ])
                }),
        ])
    }

    var text: String {
        var lines: [(String, String)] = [
            ("file", file),
            (
                "format",
                "nRF Connect SDK DFU package"
                    + (formatVersion.map { " (manifest format-version \($0))" } ?? "")
                    + ", \(images.count) MCUboot image" + (images.count == 1 ? "" : "s")
            ),
        ]
        if let name { lines.append(("name", name)) }
        if let time { lines.append(("time", "\(time)")) }
        var sections = [aligned(lines)]
        for entry in images {
            var fields: [(String, String)] = [
                ("image \(entry.imageIndex)", "\(entry.file) (\(entry.image.size) bytes)")
            ]
            if let board = entry.board { fields.append(("board", board)) }
            if let soc = entry.soc { fields.append(("soc", soc)) }
            if entry.slotIndexPrimary != nil || entry.slotIndexSecondary != nil {
                let primary = entry.slotIndexPrimary.map(String.init) ?? "-"
                let secondary = entry.slotIndexSecondary.map(String.init) ?? "-"
                fields.append(("manifest slots", "primary \(primary), secondary \(secondary)"))
            }
            if let address = entry.loadAddress {
                fields.append(("manifest address", "0x" + String(address, radix: 16)))
            }
            if let version = entry.version { fields.append(("manifest version", version)) }
            sections.append(aligned(fields) + "\n" + entry.image.text)
        }
        return sections.joined(separator: "\n\n")
    }
}

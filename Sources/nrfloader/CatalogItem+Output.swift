import NRFLoaderKit

extension CatalogItem {
    /// Every field of the entry, as `list --json` and `info --json` print it.
    var json: JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion),
            "id": .string(id),
            "title": .string(title),
            "description": .string(description),
            "version": .string(version),
            "boards": .array(boards.map { .string($0) }),
            "chip": .string(chip),
            "type": .string(imageType),
            "file": .string(file),
            "size": .int(size),
            "sha256": .string(sha256),
            "load_address": .int(Int(loadAddress)),
            "softdevice": .optional(softDevice) { .string($0) },
            "embedded": .bool(isEmbedded),
            "dfu": .object([
                "legacy": .optional(legacyDFU) { legacy in
                    .object([
                        "device_type": .int(Int(legacy.deviceType)),
                        "device_revision": .int(Int(legacy.deviceRevision)),
                        "application_version": .int(Int(legacy.applicationVersion)),
                        "softdevice_ids": .array(legacy.softDeviceIDs.map { .int(Int($0)) }),
                    ])
                },
                "secure": .optional(secureDFU) { secure in
                    .object([
                        "hardware_version": .int(Int(secure.hardwareVersion)),
                        "firmware_version": .int(Int(secure.firmwareVersion)),
                        "softdevice_required": .array(secure.softDeviceRequirements.map { .int(Int($0)) }),
                    ])
                },
                "mcuboot": .optional(mcubootImageNumber) { .object(["image": .int($0)]) },
            ]),
        ])
    }

    /// The entry as `info` prints it: one `name: value` line per field.
    var detailLines: [(String, String)] {
        var lines: [(String, String)] = [
            ("id", id), ("title", title), ("description", description), ("version", version),
            ("boards", boards.joined(separator: ", ")), ("chip", chip), ("type", imageType),
            ("softdevice", softDevice ?? "-"),
            ("file", file + (isEmbedded ? " (embedded)" : "")), ("size", "\(size) bytes"),
            ("load address", hex(loadAddress, width: 8)), ("sha256", sha256),
        ]
        if let legacy = legacyDFU {
            lines.append(
                (
                    "legacy DFU",
                    "device type \(hex(legacy.deviceType, width: 4)), revision \(hex(legacy.deviceRevision, width: 4)), "
                        + "application version \(hex(legacy.applicationVersion, width: 8)), SoftDevices "
                        + legacy.softDeviceIDs.map { hex($0, width: 4) }.joined(separator: " ")
                )
            )
        }
        if let secure = secureDFU {
            lines.append(
                (
                    "secure DFU",
                    "hardware version \(secure.hardwareVersion), firmware version \(secure.firmwareVersion), "
                        + "SoftDevices "
                        + secure.softDeviceRequirements.map { hex($0, width: 4) }.joined(separator: " ")
                )
            )
        }
        if let mcubootImageNumber {
            lines.append(("MCUboot", "signed image for image number \(mcubootImageNumber), sent over SMP"))
        }
        return lines
    }

    /// How the entry is updated, as `list` shows it: `smp` for an MCUboot image, else the nRF5 DFU protocols.
    var protocolList: String {
        protocols.contains("smp") ? "smp" : protocols.joined(separator: ",")
    }
}

/// Lines of `name: value`, the names padded to one column; a line with an empty name continues the one above.
///
/// Names and values are escaped for the terminal, since values come from catalogs, packages and file names.
func aligned(_ lines: [(String, String)]) -> String {
    let lines = lines.map { ($0.0.escapedForTerminal, $0.1.escapedForTerminal) }
    let width = (lines.map(\.0.count).max() ?? 0) + 2
    return lines.map { ($0.0.isEmpty ? "" : $0.0 + ":").padding(to: width) + $0.1 }.joined(separator: "\n")
}

extension String {
    /// The string padded with spaces on the right to `width` characters.
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}

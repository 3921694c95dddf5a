import NRFLoaderKit

/// What `info` prints for a `.zip` package: its parts, sizes, decoded init packets and signatures.
extension DFUPackageInfo {
    /// One part's lines (human) and object (JSON).
    private func describe(_ part: Part) -> (lines: [(String, String)], json: JSONValue) {
        var lines: [(String, String)] = [
            (
                "part",
                "\(part.imageType): \(part.binFile) (\(part.size) bytes), \(part.datFile) "
                    + "(\(part.initPacketSize) bytes)"
            )
        ]
        var members: [String: JSONValue] = [
            "type": .string(part.imageType), "bin_file": .string(part.binFile),
            "dat_file": .string(part.datFile),
            "size": .int(part.size), "init_packet_size": .int(part.initPacketSize),
        ]
        switch part.initPacket {
        case .secure(let command):
            let fields: [(String, String, JSONValue)] = [
                (
                    "fw_version", command?.firmwareVersion.map { String($0) } ?? "-",
                    .optional(command?.firmwareVersion) { .int(Int($0)) }
                ),
                (
                    "hw_version", command?.hardwareVersion.map { String($0) } ?? "-",
                    .optional(command?.hardwareVersion) { .int(Int($0)) }
                ),
                (
                    "sd_req",
                    command?.softDeviceRequirements.map { hex($0, width: 4) }.joined(separator: " ") ?? "-",
                    .array((command?.softDeviceRequirements ?? []).map { .int(Int($0)) })
                ),
                ("type", command?.firmwareType ?? "-", .optional(command?.firmwareType) { .string($0) }),
                (
                    "sizes",
                    "sd \(command?.softDeviceSize ?? 0), bl \(command?.bootloaderSize ?? 0), "
                        + "app \(command?.applicationSize ?? 0)",
                    .object([
                        "sd_size": .int(Int(command?.softDeviceSize ?? 0)),
                        "bl_size": .int(Int(command?.bootloaderSize ?? 0)),
                        "app_size": .int(Int(command?.applicationSize ?? 0)),
                    ])
                ),
                (
                    "hash",
                    command?.hash.map { "\(command?.hashType ?? "") \(hexString($0))" } ?? "-",
                    .optional(command?.hash) { .string(hexString($0)) }
                ),
                (
                    "is_debug", command?.isDebug.map { String($0) } ?? "-",
                    .optional(command?.isDebug) { .bool($0) }
                ),
            ]
            for (name, text, value) in fields {
                lines.append(("  " + name, text))
                // The init packet's `type` must not overwrite the part's own `type` in JSON.
                members[name == "type" ? "fw_type" : name] = value
            }
            members["protocol"] = .string("secure")
        case .legacy(let packet):
            lines += [
                ("  device_type", hex(packet.deviceType, width: 4)),
                ("  device_revision", hex(packet.deviceRevision, width: 4)),
                ("  application_version", hex(packet.applicationVersion, width: 8)),
                ("  softdevice_req", packet.softDeviceRequirements.map { hex($0, width: 4) }.joined(separator: " ")),
                ("  validation", Self.describe(packet.validation)),
            ]
            // The extension's fields under the names adafruit-nrfutil's manifest gives them (init_packet_data).
            var extensionID: Int?
            var crc16: Int?
            var length: Int?
            var digest: String?
            var ecds: String?
            switch packet.validation {
            case .crc16(let crc): crc16 = Int(crc)
            case .extendedCRC16(let crc):
                extensionID = 0
                crc16 = Int(crc)
            case .sha256(let firmwareLength, let hash):
                extensionID = 1
                length = Int(firmwareLength)
                digest = hexString(hash)
            case .signedSHA256(let firmwareLength, let hash, let signature):
                extensionID = 2
                length = Int(firmwareLength)
                digest = hexString(hash)
                ecds = hexString(signature)
            }
            if let extensionID { lines.append(("  ext_packet_id", String(extensionID))) }
            if let crc16 { lines.append(("  firmware_crc16", hex(crc16, width: 4))) }
            if let length { lines.append(("  firmware_length", String(length))) }
            if let digest { lines.append(("  firmware_hash", digest)) }
            if let ecds { lines.append(("  init_packet_ecds", ecds)) }
            members["ext_packet_id"] = .optional(extensionID) { .int($0) }
            members["firmware_crc16"] = .optional(crc16) { .int($0) }
            members["firmware_length"] = .optional(length) { .int($0) }
            members["firmware_hash"] = .optional(digest) { .string($0) }
            members["init_packet_ecds"] = .optional(ecds) { .string($0) }
            members["protocol"] = .string("legacy")
            members["device_type"] = .int(Int(packet.deviceType))
            members["device_revision"] = .int(Int(packet.deviceRevision))
            members["application_version"] = .int(Int(packet.applicationVersion))
            members["softdevice_req"] = .array(packet.softDeviceRequirements.map { .int(Int($0)) })
        }
        let signature = Self.describe(part.signature)
        lines.append(("  signature", signature))
        members["signature"] = .string(signature)
        return (lines, .object(members))
    }

    var text: String {
        var lines: [(String, String)] = [("file", file), ("format", formatText)]
        for part in parts { lines += describe(part).lines }
        return aligned(lines)
    }

    var json: JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "kind": .string("package"), "file": .string(file),
            "format": .string(formatText), "parts": .array(parts.map { describe($0).json }),
        ])
    }

    private var formatText: String {
        switch format {
        case .secure: "Secure DFU (nrfutil package)"
        case .legacy(let version): "legacy DFU" + (version.map { " (dfu_version \($0))" } ?? "")
        }
    }

    private static func describe(_ signature: SignatureStatus) -> String {
        switch signature {
        case .unsigned: "unsigned"
        case .notVerified: "signed (not verified: give --verify-key)"
        case .valid: "valid"
        case .invalid: "invalid"
        }
    }

    private static func describe(_ validation: LegacyValidation) -> String {
        switch validation {
        case .crc16(let crc): "CRC-16 \(hex(crc, width: 4))"
        case .extendedCRC16(let crc): "CRC-16 \(hex(crc, width: 4)) (dfu_version 0.6 extension)"
        case .sha256(let length, let digest): "SHA-256 of \(length) bytes \(hexString(digest))"
        case .signedSHA256(let length, let digest, _): "SHA-256 of \(length) bytes \(hexString(digest)), signed"
        }
    }
}

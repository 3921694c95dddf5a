import Checksums
import DFUPackage
import DFUSigning
import HexConverter
import NRFLoaderKit

/// What `info` prints for a `.zip` package: its parts, sizes, decoded init packets and signatures.
struct PackageInfo {
    let package: DFUPackage
    let verifier: InitPacketVerifier?

    /// One part's lines (human) and object (JSON).
    private func describe(_ part: DFUPackage.Part) throws -> (lines: [(String, String)], json: JSONValue) {
        var lines: [(String, String)] = [
            (
                "part",
                "\(part.imageType.rawValue): \(part.binFile) (\(part.firmware.count) bytes), \(part.datFile) "
                    + "(\(part.initPacketBytes.count) bytes)"
            )
        ]
        var members: [String: JSONValue] = [
            "type": .string(part.imageType.rawValue), "bin_file": .string(part.binFile),
            "dat_file": .string(part.datFile),
            "size": .int(part.firmware.count), "init_packet_size": .int(part.initPacketBytes.count),
        ]
        switch part.initPacket {
        case .secure(let packet):
            let command = packet.command.initCommand
            let fields: [(String, String, JSONValue)] = [
                (
                    "fw_version", command?.fwVersion.map { String($0) } ?? "-",
                    .optional(command?.fwVersion) { .int(Int($0)) }
                ),
                (
                    "hw_version", command?.hwVersion.map { String($0) } ?? "-",
                    .optional(command?.hwVersion) { .int(Int($0)) }
                ),
                (
                    "sd_req", command?.sdReq.map { hex($0, width: 4) }.joined(separator: " ") ?? "-",
                    .array((command?.sdReq ?? []).map { .int(Int($0)) })
                ),
                ("type", command?.type.map { "\($0)" } ?? "-", .optional(command?.type) { .string("\($0)") }),
                (
                    "sizes", "sd \(command?.sdSize ?? 0), bl \(command?.blSize ?? 0), app \(command?.appSize ?? 0)",
                    .object([
                        "sd_size": .int(Int(command?.sdSize ?? 0)), "bl_size": .int(Int(command?.blSize ?? 0)),
                        "app_size": .int(Int(command?.appSize ?? 0)),
                    ])
                ),
                (
                    "hash", command?.hash.map { "\($0.hashType) \(hexString($0.standardOrderDigest))" } ?? "-",
                    .optional(command?.hash) { .string(hexString($0.standardOrderDigest)) }
                ),
                ("is_debug", command?.isDebug.map { String($0) } ?? "-", .optional(command?.isDebug) { .bool($0) }),
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
                ("  softdevice_req", packet.softdeviceReq.map { hex($0, width: 4) }.joined(separator: " ")),
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
            members["softdevice_req"] = .array(packet.softdeviceReq.map { .int(Int($0)) })
        }
        let signature: String
        if let verifier {
            signature = "\(try verifier.check(part, packageName: package.name))"
        } else {
            signature = part.signedMessage == nil ? "unsigned" : "signed (not verified: give --verify-key)"
        }
        lines.append(("  signature", signature))
        members["signature"] = .string(signature)
        return (lines, .object(members))
    }

    func text() throws -> String {
        var lines: [(String, String)] = [("file", package.name), ("format", format)]
        for part in package.parts { lines += try describe(part).lines }
        return aligned(lines)
    }

    func json() throws -> JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "kind": .string("package"), "file": .string(package.name),
            "format": .string(format), "parts": .array(try package.parts.map { try describe($0).json }),
        ])
    }

    private var format: String {
        switch package.format {
        case .secure: "Secure DFU (nrfutil package)"
        case .legacy(let version): "legacy DFU" + (version.map { " (dfu_version \($0))" } ?? "")
        }
    }

    /// Whether every part's signature verified (`true` when no key was given).
    func signaturesVerify() throws -> Bool {
        guard let verifier else { return true }
        return try package.parts.allSatisfy { try verifier.check($0, packageName: package.name) == .valid }
    }

    private static func describe(_ validation: LegacyInitPacket.Validation) -> String {
        switch validation {
        case .crc16(let crc): "CRC-16 \(hex(crc, width: 4))"
        case .extendedCRC16(let crc): "CRC-16 \(hex(crc, width: 4)) (dfu_version 0.6 extension)"
        case .sha256(let length, let digest): "SHA-256 of \(length) bytes \(hexString(digest))"
        case .signedSHA256(let length, let digest, _): "SHA-256 of \(length) bytes \(hexString(digest)), signed"
        }
    }
}

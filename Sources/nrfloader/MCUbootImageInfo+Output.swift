import NRFLoaderKit

/// `nrfloader info IMAGE` for a signed MCUboot image: what `imgtool dumpinfo` shows (header, both TLV areas, the
/// trailer), plus the SHA-256 TLV check and, with `--verify-key`, the signature check.
extension MCUbootImageInfo {
    var json: JSONValue {
        func area(_ area: TLVArea?) -> JSONValue {
            .optional(area) { .object(["magic": .int(Int($0.magic)), "tlv_tot": .int($0.totalSize)]) }
        }
        func entries(_ area: TLVArea?) -> JSONValue {
            .array(
                (area?.entries ?? []).map {
                    .object([
                        "type": .int(Int($0.type)), "type_name": .string($0.typeName), "len": .int($0.value.count),
                        "data": .string(hexString($0.value)),
                    ])
                })
        }
        return .object([
            "schema": .int(JSONValue.schemaVersion), "kind": .string("mcuboot"), "file": .string(file),
            "size": .int(size),
            "header": .object([
                "magic": .int(Int(headerMagic)), "load_addr": .int(Int(loadAddress)),
                "hdr_size": .int(headerSize), "protected_tlv_size": .int(protectedTLVSize),
                "img_size": .int(imageSize), "flags": .int(Int(flags)),
                "flag_names": .array(flagNames.map(JSONValue.string)),
                "version": .string(version),
            ]),
            "tlv_area": .object([
                "tlv_hdr_prot": area(protectedTLVs), "tlvs_prot": entries(protectedTLVs),
                "tlv_hdr": area(tlvs), "tlvs": entries(tlvs),
            ]),
            "trailer": .optional(trailer) { trailer in
                .object([
                    "magic": .string(hexString(trailer.magic)),
                    "image_ok": .optional(trailer.imageOK) { .int(Int($0)) },
                    "copy_done": .optional(trailer.copyDone) { .int(Int($0)) },
                    "swap_info": .optional(trailer.swapInfo) { .int(Int($0)) },
                    "swap_size": .optional(trailer.swapSize) { .int(Int($0)) },
                ])
            },
            "swap_after_upload": .optional(swapAfterUpload) { .string($0.rawValue) },
            "sha256_tlv": .object([
                "value": .optional(storedHash) { .string(hexString($0)) }, "valid": .bool(hashError == nil),
            ]),
            "signature": .optional(signatureCheck) { check in
                switch check {
                case .verified(let keyFile, let keyType):
                    .object(["key_file": .string(keyFile), "type": .string(keyType), "valid": .bool(true)])
                case .failed(let error):
                    .object(["error": .string(error.message), "valid": .bool(false)])
                }
            },
        ])
    }

    var text: String {
        var lines: [(String, String)] = [
            ("file", file), ("format", "MCUboot image (\(size) bytes)"),
            ("magic", "0x96f3b83d"), ("load address", hex32(loadAddress)),
            ("header size", "\(hex(headerSize)) (\(headerSize) bytes)"),
            ("protected TLV size", "\(hex(protectedTLVSize)) (\(protectedTLVSize) bytes)"),
            ("image size", "\(hex(imageSize)) (\(imageSize) bytes)"),
            ("flags", flags == 0 ? "0x0" : "\(hex(Int(flags))) (\(flagNames.joined(separator: ", ")))"),
            ("version", version),
        ]
        for (title, area) in [("protected TLVs", protectedTLVs), ("TLVs", Optional(tlvs))] {
            guard let area else { continue }
            lines.append((title, "magic \(hex(Int(area.magic))), \(area.totalSize) bytes at \(hex(area.offset))"))
            for entry in area.entries {
                lines.append(
                    (
                        "",
                        "\(entry.typeName) (\(hex(Int(entry.type)))) \(entry.value.count) bytes: \(hexString(entry.value))"
                    ))
            }
        }
        if let trailer {
            let magic = trailer.maximumAlignment.map { "good (alignment \($0))" } ?? "invalid"
            lines.append(("trailer", "\(trailer.paddedSize) bytes after the TLVs; magic \(magic)"))
            if let imageOK = trailer.imageOK { lines.append(("", "image_ok \(Self.status(imageOK))")) }
            if let copyDone = trailer.copyDone { lines.append(("", "copy_done \(Self.status(copyDone))")) }
            if let swapInfo = trailer.swapInfo { lines.append(("", "swap_info \(Self.status(swapInfo))")) }
        }
        switch swapAfterUpload {
        case .permanent: lines.append(("after upload", "pending permanent (signed with imgtool --confirm)"))
        case .test: lines.append(("after upload", "pending test (padded with a trailer by imgtool --pad)"))
        case nil: break
        }
        lines.append(("sha256 TLV", hashError.map(\.message) ?? "\(hexString(storedHash ?? [])) (matches)"))
        switch signatureCheck {
        case .verified(let keyFile, let keyType)?:
            lines.append(("signature", "\(keyType) signature verifies with '\(keyFile)'"))
        case .failed(let error)?: lines.append(("signature", error.message))
        case nil: break
        }
        return aligned(lines)
    }

    /// imgtool's trailer status words (`dumpinfo.py` `STATUS`).
    private static func status(_ value: UInt8) -> String {
        let names: [UInt8: String] = [1: "SET", 2: "BAD", 3: "UNSET", 4: "ANY"]
        return "\(names[value] ?? "INVALID") (\(hex(Int(value))))"
    }
}

/// `0x1a2b`, lowercase, as imgtool prints header fields.
private func hex(_ value: Int) -> String { "0x" + String(value, radix: 16) }

/// `0x0000abcd`.
private func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

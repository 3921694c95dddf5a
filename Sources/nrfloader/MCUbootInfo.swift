import MCUbootImage
import NRFLoaderKit

/// `nrfloader info IMAGE` for a signed MCUboot image: what `imgtool dumpinfo` shows (header, both TLV areas, the
/// trailer), plus the SHA-256 TLV check and, with `--verify-key`, the signature check.
struct MCUbootInfo {
    let image: MCUbootImage
    /// The SHA-256 TLV check: the error when it fails.
    let hashProblem: MCUbootImageError?
    /// The signature check with `--verify-key`: `nil` without a key, else the error or success.
    let signatureCheck: Result<MCUbootVerificationKey, MCUbootImageError>?

    init(image: MCUbootImage, key: MCUbootVerificationKey?) {
        self.image = image
        do throws(MCUbootImageError) {
            try image.verifiedHash()
            hashProblem = nil
        } catch {
            hashProblem = error
        }
        if let key {
            do throws(MCUbootImageError) {
                try key.verify(image)
                signatureCheck = .success(key)
            } catch {
                signatureCheck = .failure(error)
            }
        } else {
            signatureCheck = nil
        }
    }

    /// The first failed check, which makes `info` exit 65 after printing.
    var failure: MCUbootImageError? {
        if let hashProblem { return hashProblem }
        if case .failure(let error)? = signatureCheck { return error }
        return nil
    }

    var json: JSONValue {
        let header = image.header
        func area(_ area: MCUbootTLVArea?) -> JSONValue {
            .optional(area) { .object(["magic": .int(Int($0.magic)), "tlv_tot": .int($0.totalSize)]) }
        }
        func entries(_ area: MCUbootTLVArea?) -> JSONValue {
            .array(
                (area?.entries ?? []).map {
                    .object([
                        "type": .int(Int($0.type)), "type_name": .string($0.typeName), "len": .int($0.value.count),
                        "data": .string(lowercaseHex($0.value)),
                    ])
                })
        }
        return .object([
            "schema": .int(JSONValue.schemaVersion), "kind": .string("mcuboot"), "file": .string(image.file),
            "size": .int(image.bytes.count),
            "header": .object([
                "magic": .int(Int(MCUbootImageHeader.magic)), "load_addr": .int(Int(header.loadAddress)),
                "hdr_size": .int(header.headerSize), "protected_tlv_size": .int(header.protectedTLVSize),
                "img_size": .int(header.imageSize), "flags": .int(Int(header.flags)),
                "flag_names": .array(header.flagNames.map(JSONValue.string)),
                "version": .string(header.version.description),
            ]),
            "tlv_area": .object([
                "tlv_hdr_prot": area(image.protectedTLVs), "tlvs_prot": entries(image.protectedTLVs),
                "tlv_hdr": area(image.tlvs), "tlvs": entries(image.tlvs),
            ]),
            "trailer": .optional(image.trailer) { trailer in
                .object([
                    "magic": .string(lowercaseHex(trailer.magic)),
                    "image_ok": .optional(trailer.imageOK) { .int(Int($0)) },
                    "copy_done": .optional(trailer.copyDone) { .int(Int($0)) },
                    "swap_info": .optional(trailer.swapInfo) { .int(Int($0)) },
                    "swap_size": .optional(trailer.swapSize) { .int(Int($0)) },
                ])
            },
            "swap_after_upload": .optional(image.swapRequestedByTrailer) {
                .string($0 == .permanent ? "permanent" : "test")
            },
            "sha256_tlv": .object([
                "value": .optional(image.storedHash) { .string(lowercaseHex($0)) }, "valid": .bool(hashProblem == nil),
            ]),
            "signature": .optional(signatureCheck) { check in
                switch check {
                case .success(let key):
                    .object([
                        "key_file": .string(key.file), "type": .string(key.kind.description), "valid": .bool(true),
                    ])
                case .failure(let error):
                    .object(["error": .string("\(error)"), "valid": .bool(false)])
                }
            },
        ])
    }

    var text: String {
        let header = image.header
        var lines: [(String, String)] = [
            ("file", image.file), ("format", "MCUboot image (\(image.bytes.count) bytes)"),
            ("magic", "0x96f3b83d"), ("load address", hex32(header.loadAddress)),
            ("header size", "\(hex(header.headerSize)) (\(header.headerSize) bytes)"),
            ("protected TLV size", "\(hex(header.protectedTLVSize)) (\(header.protectedTLVSize) bytes)"),
            ("image size", "\(hex(header.imageSize)) (\(header.imageSize) bytes)"),
            (
                "flags",
                header.flags == 0 ? "0x0" : "\(hex(Int(header.flags))) (\(header.flagNames.joined(separator: ", ")))"
            ),
            ("version", header.version.description),
        ]
        for (title, area) in [("protected TLVs", image.protectedTLVs), ("TLVs", Optional(image.tlvs))] {
            guard let area else { continue }
            lines.append((title, "magic \(hex(Int(area.magic))), \(area.totalSize) bytes at \(hex(area.offset))"))
            for entry in area.entries {
                lines.append(
                    (
                        "",
                        "\(entry.typeName) (\(hex(Int(entry.type)))) \(entry.value.count) bytes: \(lowercaseHex(entry.value))"
                    ))
            }
        }
        if let trailer = image.trailer {
            let magic = trailer.maximumAlignment.map { "good (alignment \($0))" } ?? "invalid"
            lines.append(("trailer", "\(trailer.paddedSize) bytes after the TLVs; magic \(magic)"))
            if let imageOK = trailer.imageOK { lines.append(("", "image_ok \(Self.status(imageOK))")) }
            if let copyDone = trailer.copyDone { lines.append(("", "copy_done \(Self.status(copyDone))")) }
            if let swapInfo = trailer.swapInfo { lines.append(("", "swap_info \(Self.status(swapInfo))")) }
        }
        switch image.swapRequestedByTrailer {
        case .permanent: lines.append(("after upload", "pending permanent (signed with imgtool --confirm)"))
        case .test: lines.append(("after upload", "pending test (padded with a trailer by imgtool --pad)"))
        case nil: break
        }
        lines.append(("sha256 TLV", hashProblem.map { "\($0)" } ?? "\(lowercaseHex(image.storedHash ?? [])) (matches)"))
        switch signatureCheck {
        case .success(let key)?: lines.append(("signature", "\(key.kind) signature verifies with '\(key.file)'"))
        case .failure(let error)?: lines.append(("signature", "\(error)"))
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

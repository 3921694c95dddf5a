package import SMP

/// The begin and result events of an SMP update.
///
/// A lone image keeps its one-part form; a package names each image (its number, entry, version and size) in the
/// begin event and in the result.
package enum SMPUploadSummary {
    /// The begin event of an update that sends `images`, from the package named `package` or a lone image.
    package static func plan(_ images: [SMPImageUpload], package: String?, target: String) -> UpdatePlan {
        let parts = images.map { UpdatePlan.Part(type: "application", size: $0.bytes.count) }
        guard let package else {
            let image = images[0]
            return UpdatePlan(
                input: image.name, target: target, updateProtocol: "smp", parts: parts,
                summary: "uploading \(image.name) (MCUboot image \(image.version), \(image.bytes.count) bytes) "
                    + "to \(target) over SMP",
                json: .event(
                    "begin",
                    [
                        "input": .string(image.name), "target": .string(target), "protocol": .string("smp"),
                        "parts": .array([
                            .object([
                                "type": .string("application"), "size": .int(image.bytes.count),
                                "version": .string(image.version), "hash": .string(lowercaseHex(image.hash)),
                            ])
                        ]),
                    ]))
        }
        let described = images.enumerated().map { index, entry in
            "part \(index + 1)/\(images.count) image \(entry.image) '\(entry.name)' "
                + "(\(entry.version), \(entry.bytes.count) bytes)"
        }
        return UpdatePlan(
            input: package, target: target, updateProtocol: "smp", parts: parts,
            summary: "uploading \(package) (\(images.count) MCUboot "
                + (images.count == 1 ? "image" : "images") + ") to \(target) over SMP: "
                + described.joined(separator: ", "),
            json: .event(
                "begin",
                [
                    "input": .string(package), "target": .string(target), "protocol": .string("smp"),
                    "parts": .array(
                        images.map { entry in
                            .object([
                                "type": .string("application"), "image": .int(entry.image),
                                "file": .string(entry.name), "size": .int(entry.bytes.count),
                                "version": .string(entry.version), "hash": .string(lowercaseHex(entry.hash)),
                            ])
                        }),
                ]))
    }

    /// The result of a completed SMP update of `images`, from the package named `package` or a lone image.
    package static func summary(
        _ result: SMPUploadResult, images: [SMPImageUpload], package: String?, elapsed: Duration
    ) -> UpdateSummary {
        guard let package else {
            let slot = result.slot
            let number = images[0].image
            let part = UpdateSummary.Part(
                name: "image \(result.slot.slot)", bytesConfirmed: result.bytesUploaded, crc32: nil, hash: slot.hash,
                summary: "image \(slot.version) (hash \(lowercaseHex(slot.hash.prefix(8)))…) "
                    + "\(result.outcome.rawValue) by the device: \(number == 0 ? "" : "image \(number) ")slot "
                    + "\(slot.slot), \(slot.flagsDescription); "
                    + "\(result.bytesUploaded) bytes uploaded")
            return UpdateSummary(
                parts: [part], elapsed: elapsed, json: .object(resultMembers(result)), detail: .smp(result))
        }
        let names = Dictionary(images.map { ($0.image, $0.name) }, uniquingKeysWith: { first, _ in first })
        var members = resultMembers(result)
        members["input"] = .string(package)
        members["images"] = .array(
            result.images.map { image in
                var members = slotMembers(image.slot)
                members["image"] = .int(image.image)
                members["file"] = .optional(names[image.image]) { .string($0) }
                members["state"] = .string(image.outcome.rawValue)
                members["bytes_uploaded"] = .int(image.bytesUploaded)
                return .object(members)
            })
        let parts = result.images.map { image in
            UpdateSummary.Part(
                name: "image \(image.image) '\(names[image.image] ?? "")'", bytesConfirmed: image.bytesUploaded,
                crc32: nil, hash: image.slot.hash,
                summary: "image \(image.image) '\(names[image.image] ?? "")' "
                    + "\(image.slot.version) (hash \(lowercaseHex(image.slot.hash.prefix(8)))…) "
                    + "\(image.outcome.rawValue) by the device: slot \(image.slot.slot), "
                    + "\(image.slot.flagsDescription); \(image.bytesUploaded) bytes uploaded")
        }
        return UpdateSummary(parts: parts, elapsed: elapsed, json: .object(members), detail: .smp(result))
    }

    /// The result object's members every SMP update has: the (first) image's state and slot, and the session.
    private static func resultMembers(_ result: SMPUploadResult) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "schema": .int(JSONValue.schemaVersion), "event": .string("result"), "protocol": .string("smp"),
            "state": .string(result.outcome.rawValue), "bytes_uploaded": .int(result.bytesUploaded),
            "image": .object(slotMembers(result.slot)),
            "smp": .object([
                "buf_size": .int(result.parameters.bufferSize),
                "buf_count": .int(result.parameters.bufferCount),
                "parameters_reported": .bool(result.parametersReported), "chunk_size": .int(result.chunkSize),
                "requests_in_flight": .int(result.requestsInFlight), "reconnects": .int(result.reconnects),
            ]),
        ]
        if result.viaSerialRecovery, case .object(var smp)? = members["smp"] {
            smp["serial_recovery"] = .bool(true)
            members["smp"] = .object(smp)
        }
        return members
    }

    /// A slot's members in JSON: the `image list` verb's, and the result's.
    package static func slotMembers(_ slot: ImageSlotState) -> [String: JSONValue] {
        [
            "slot": .int(slot.slot), "version": .string(slot.version), "hash": .string(lowercaseHex(slot.hash)),
            "active": .bool(slot.isActive), "confirmed": .bool(slot.isConfirmed), "pending": .bool(slot.isPending),
            "permanent": .bool(slot.isPermanent),
        ]
    }
}

/// `0a1b…`: bytes as lowercase hexadecimal digits.
package func lowercaseHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

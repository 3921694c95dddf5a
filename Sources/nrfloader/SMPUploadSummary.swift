import MCUbootImage
import SMP

/// The begin line and the result of an SMP update.
///
/// They go on the DFU uploads' channels: JSON Lines on stdout with `--json`, the result line on stdout otherwise. A
/// lone image keeps its one-part form; a package names each image (its
/// number, entry, version and size) in the begin line and in the result.
enum SMPUploadSummary {
    static func begin(_ input: SMPUpdateInput, target: String, mode: UploadRenderer.Mode) {
        guard input.isPackage else { return begin(input.images[0].image, target: target, mode: mode) }
        switch mode {
        case .json:
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("begin"), "input": .string(input.name),
                    "target": .string(target), "protocol": .string("smp"),
                    "parts": .array(
                        input.images.map { entry in
                            .object([
                                "type": .string("application"), "image": .int(entry.number),
                                "file": .string(entry.name), "size": .int(entry.image.bytes.count),
                                "version": .string(entry.image.header.version.description),
                                "hash": .string(lowercaseHex(entry.image.storedHash ?? [])),
                            ])
                        }),
                ]))
        case .terminal, .lines:
            let parts = input.images.enumerated().map { index, entry in
                "part \(index + 1)/\(input.images.count) image \(entry.number) '\(entry.name.escapedForTerminal)' "
                    + "(\(entry.image.header.version), \(entry.image.bytes.count) bytes)"
            }
            Console.note(
                "uploading \(input.name.escapedForTerminal) (\(input.images.count) MCUboot "
                    + (input.images.count == 1 ? "image" : "images") + ") to "
                    + "\(target.escapedForTerminal) over SMP: " + parts.joined(separator: ", "))
        case .quiet:
            break
        }
    }

    static func finish(_ result: SMPUploadResult, input: SMPUpdateInput, mode: UploadRenderer.Mode) {
        guard input.isPackage else { return finish(result, image: input.images[0].image, mode: mode) }
        let names = Dictionary(input.images.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        switch mode {
        case .json:
            var members = resultMembers(result)
            members["input"] = .string(input.name)
            members["images"] = .array(
                result.images.map { image in
                    var members = slotMembers(image.slot)
                    members["image"] = .int(image.image)
                    members["file"] = .optional(names[image.image]) { .string($0) }
                    members["state"] = .string(image.outcome.rawValue)
                    members["bytes_uploaded"] = .int(image.bytesUploaded)
                    return .object(members)
                })
            Console.json(.object(members))
        case .terminal, .lines, .quiet:
            // The device's version strings and flags come from the device: escaped before they reach a terminal.
            Console.result(
                result.images.map { image in
                    "image \(image.image) '\((names[image.image] ?? "").escapedForTerminal)' "
                        + "\(image.slot.version.escapedForTerminal) (hash \(lowercaseHex(image.slot.hash.prefix(8)))…) "
                        + "\(image.outcome.rawValue) by the device: slot \(image.slot.slot), "
                        + "\(image.slot.flagsDescription); \(image.bytesUploaded) bytes uploaded"
                }.joined(separator: "\n"))
        }
    }

    static func begin(_ image: MCUbootImage, target: String, mode: UploadRenderer.Mode) {
        switch mode {
        case .json:
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "event": .string("begin"), "input": .string(image.file),
                    "target": .string(target), "protocol": .string("smp"),
                    "parts": .array([
                        .object([
                            "type": .string("application"), "size": .int(image.bytes.count),
                            "version": .string(image.header.version.description),
                            "hash": .string(lowercaseHex(image.storedHash ?? [])),
                        ])
                    ]),
                ]))
        case .terminal, .lines:
            Console.note(
                "uploading \(image.file.escapedForTerminal) (MCUboot image \(image.header.version), "
                    + "\(image.bytes.count) bytes) to \(target.escapedForTerminal) over SMP")
        case .quiet:
            break
        }
    }

    static func finish(_ result: SMPUploadResult, image: MCUbootImage, mode: UploadRenderer.Mode) {
        let slot = result.slot
        // The device's version string and flags come from the device: escaped before they reach a terminal.
        switch mode {
        case .json:
            Console.json(.object(resultMembers(result)))
        case .terminal, .lines, .quiet:
            Console.result(
                "image \(slot.version.escapedForTerminal) (hash \(lowercaseHex(slot.hash.prefix(8)))…) "
                    + "\(result.outcome.rawValue) by the device: slot \(slot.slot), \(slot.flagsDescription); "
                    + "\(result.bytesUploaded) bytes uploaded")
        }
    }

    /// The result object's members every SMP update has: the (first) image's state and slot, and the session.
    private static func resultMembers(_ result: SMPUploadResult) -> [String: JSONValue] {
        [
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
    }

    private static func slotMembers(_ slot: ImageSlotState) -> [String: JSONValue] {
        [
            "slot": .int(slot.slot), "version": .string(slot.version), "hash": .string(lowercaseHex(slot.hash)),
            "active": .bool(slot.isActive), "confirmed": .bool(slot.isConfirmed), "pending": .bool(slot.isPending),
            "permanent": .bool(slot.isPermanent),
        ]
    }
}

import ArgumentParser
import NRFLoaderKit

/// `nrfloader info`: everything about a catalog entry, an Intel HEX file or a binary image.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a catalog entry, a DFU package (.zip), an Intel HEX file or a binary image.",
        discussion: """
            For .zip: its parts, sizes, decoded init packet fields and signature (checked with --verify-key). \
            For .hex: its regions, start address, and the DFU image Nordic's tools would make of it (MBR and UICR \
            dropped, padded to 4 bytes). For .bin: size and SHA-256; a signed MCUboot image (magic 0x96f3b83d): what \
            imgtool dumpinfo shows, its SHA-256 TLV checked, and its signature with --verify-key (ECDSA P-256 or \
            ed25519, imgtool's PEM keys). For both, the vector table's initial stack \
            pointer and reset handler when the image looks like a Cortex-M application.
            """
    )

    @Argument(help: "A catalog id, or a .hex or .bin file ('-' for standard input).")
    var target: String

    @Option(
        help: ArgumentHelp(
            "For a .zip: check each init packet signature against this public key (PEM or Nordic's form); for an "
                + "MCUboot image: its signature against this imgtool key (PEM, private or public)."))
    var verifyKey: String?

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        var options = catalogOptions.firmwareOptions
        options.verificationKeyFile = verifyKey
        let info = try FirmwareInfo(inspecting: target, options: options)
        switch info {
        case .catalogEntry(let entry): print(entry)
        case .dfuPackage(let package):
            if outputOptions.json { Console.json(package.json) } else { Console.result(package.text) }
        case .mcubootPackage(let package):
            if outputOptions.json { Console.json(package.json) } else { Console.result(package.text) }
        case .mcubootImage(let image):
            if outputOptions.json { Console.json(image.json) } else { Console.result(image.text) }
        case .intelHex(let hex): print(hex)
        case .binary(let binary): print(binary)
        }
        // A failed hash or signature check exits 65, after the rest is shown.
        if let failure = info.verificationFailure { throw failure }
    }

    /// A catalog entry; an MCUboot entry also as `info IMAGE` shows the image, its vector table after the header.
    private func print(_ entry: CatalogEntryInfo) {
        if outputOptions.json {
            guard case .object(var members) = entry.item.json else { return }
            members["kind"] = .string("catalog")
            members["vector_table"] = vectorJSON(entry.vectorTable)
            if let mcuboot = entry.mcubootImage { members["mcuboot_image"] = mcuboot.json }
            Console.json(.object(members))
        } else {
            Console.result(
                aligned(entry.item.detailLines + vectorLines(entry.vectorTable))
                    + (entry.mcubootImage.map { "\n\n" + $0.text } ?? ""))
        }
    }

    private func print(_ info: IntelHexInfo) {
        let digest = hexString(info.imageSHA256)
        if outputOptions.json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "kind": .string("hex"), "file": .string(info.file),
                    "regions": .array(
                        info.regions.map { .object(["start": .int(Int($0.start)), "end": .int(Int($0.end))]) }),
                    "start_address": .optional(info.startAddress) { .string($0.description) },
                    "image": .object([
                        "base_address": .int(Int(info.imageBaseAddress)), "size": .int(info.imageSize),
                        "sha256": .string(digest),
                    ]),
                    "vector_table": vectorJSON(info.vectorTable),
                ])
            )
            return
        }
        var lines: [(String, String)] = [("file", info.file), ("format", "Intel HEX")]
        for (index, region) in info.regions.enumerated() {
            lines.append((index == 0 ? "regions" : "", "\(region) (\(region.count) bytes)"))
        }
        lines.append(("start address", info.startAddress?.description ?? "-"))
        lines.append(
            (
                "DFU image",
                "\(info.imageSize) bytes at \(hex(info.imageBaseAddress, width: 8)) (MBR and UICR dropped, padded to 4)"
            ))
        lines.append(("sha256", digest))
        Console.result(aligned(lines + vectorLines(info.vectorTable)))
    }

    private func print(_ info: BinaryImageInfo) {
        let digest = hexString(info.sha256)
        if outputOptions.json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "kind": .string("bin"), "file": .string(info.file),
                    "size": .int(info.size), "sha256": .string(digest), "vector_table": vectorJSON(info.vectorTable),
                ])
            )
            return
        }
        let lines = [("file", info.file), ("format", "binary"), ("size", "\(info.size) bytes"), ("sha256", digest)]
        Console.result(aligned(lines + vectorLines(info.vectorTable)))
    }

    private func vectorLines(_ vectors: CortexMVectorTable?) -> [(String, String)] {
        guard let vectors else { return [("vector table", "none found (not a Cortex-M application image?)")] }
        return [
            ("initial SP", hex(vectors.initialStackPointer, width: 8)),
            ("reset handler", hex(vectors.resetHandler, width: 8)),
        ]
    }

    private func vectorJSON(_ vectors: CortexMVectorTable?) -> JSONValue {
        .optional(vectors) { vectors in
            .object([
                "initial_stack_pointer": .int(Int(vectors.initialStackPointer)),
                "reset_handler": .int(Int(vectors.resetHandler)),
            ])
        }
    }
}

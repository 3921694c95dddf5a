import ArgumentParser
import Catalog
import Checksums
import DFUPackage
import DFUSigning
import FirmwareInput
import FoundationEssentials
import HexConverter
import MCUbootImage
import MCUbootPackage
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
        let isFile = target == "-" || FileManager.default.fileExists(atPath: target)
        if !isFile {
            let catalog = try catalogOptions.load()
            guard let entry = catalog.entry(id: target) else {
                throw CatalogError.unknownID(target, known: catalog.entries.map(\.id))
            }
            try print(entry: entry)
            return
        }
        let input = try InputFile(path: target)
        let bytes = try input.readAll()
        switch ImageFormat(path: target, contents: bytes) {
        case .package where MCUbootPackage.isPackage(bytes):
            try printMCUbootPackage(bytes, name: input.displayName)
        case .package:
            let info = PackageInfo(
                package: try DFUPackage(zip: bytes, name: input.displayName), verifier: try loadVerifier())
            if outputOptions.json { Console.json(try info.json()) } else { Console.result(try info.text()) }
            if let verifyKey, !(try info.signaturesVerify()) {
                throw FirmwareInputError.signature(
                    input: input.displayName, part: "init packet", problem: "does not verify with '\(verifyKey)'")
            }
        case .intelHex:
            try printHex(bytes, name: input.displayName)
        case .binary where bytes.starts(with: [0x3D, 0xB8, 0xF3, 0x96]):
            try printMCUboot(bytes, name: input.displayName)
        case .binary:
            printBinary(bytes, name: input.displayName)
        }
    }

    /// A signed MCUboot image (its first word is `IMAGE_MAGIC`, little-endian): printed, then a failed hash or
    /// signature check exits 65.
    private func printMCUboot(_ bytes: [UInt8], name: String) throws {
        let info = MCUbootInfo(image: try MCUbootImage(bytes: bytes, file: name), key: try mcubootKey())
        if outputOptions.json { Console.json(info.json) } else { Console.result(info.text) }
        if let failure = info.failure { throw failure }
    }

    /// `--verify-key` read as an MCUboot key (imgtool's PEM, private or public).
    private func mcubootKey() throws -> MCUbootVerificationKey? {
        try verifyKey.map { path in
            try MCUbootVerificationKey(
                pem: String(decoding: try InputFile(path: path).readAll(), as: UTF8.self), file: path)
        }
    }

    /// An nRF Connect SDK `dfu_application.zip`: the manifest and each image, then a failed signature check exits
    /// 65 (a broken image or hash stops the reading itself).
    private func printMCUbootPackage(_ bytes: [UInt8], name: String) throws {
        let package = try MCUbootPackage(zip: bytes, archive: name)
        let key = try verifyKey.map { path in
            try MCUbootVerificationKey(
                pem: String(decoding: try InputFile(path: path).readAll(), as: UTF8.self), file: path)
        }
        let info = MCUbootPackageInfo(package: package, key: key)
        if outputOptions.json { Console.json(info.json) } else { Console.result(info.text) }
        if let failure = info.failure { throw failure }
    }

    private func loadVerifier() throws -> InitPacketVerifier? {
        guard let verifyKey else { return nil }
        return try InitPacketVerifier(keyFile: try InputFile(path: verifyKey).readAll(), file: verifyKey)
    }

    /// A catalog entry; an MCUboot entry also as `info IMAGE` shows the image, its vector table after the header.
    private func print(entry: CatalogEntry) throws {
        var vectors = ARMVectorTable(image: entry.image, loadAddress: entry.loadAddress)
        var mcuboot: MCUbootInfo?
        if entry.mcuboot != nil {
            let image = try MCUbootImage(bytes: entry.image, file: entry.file)
            let headerSize = image.header.headerSize
            vectors = ARMVectorTable(
                image: Array(entry.image.dropFirst(headerSize)), loadAddress: entry.loadAddress + UInt32(headerSize))
            mcuboot = MCUbootInfo(image: image, key: try mcubootKey())
        }
        if outputOptions.json {
            guard case .object(var members) = entry.json else { return }
            members["kind"] = .string("catalog")
            members["vector_table"] = vectorJSON(vectors)
            if let mcuboot { members["mcuboot_image"] = mcuboot.json }
            Console.json(.object(members))
        } else {
            Console.result(
                aligned(entry.detailLines + vectorLines(vectors)) + (mcuboot.map { "\n\n" + $0.text } ?? ""))
        }
        if let failure = mcuboot?.failure { throw failure }
    }

    private func printHex(_ bytes: [UInt8], name: String) throws {
        let all = try IntelHexParser.parse(bytes, source: name)
        let dfu = try IntelHexParser.parse(bytes, source: name, window: .nordic)
        guard let base = dfu.lowestAddress else {
            throw HexConverterError.noData(source: name, range: .nordic)
        }
        let image = dfu.binary(alignment: 4)
        let digest = hexString(SHA256.hash(image))
        let vectors = ARMVectorTable(image: image, loadAddress: base)
        if outputOptions.json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "kind": .string("hex"), "file": .string(name),
                    "regions": .array(
                        all.regions.map { .object(["start": .int(Int($0.start)), "end": .int(Int($0.end))]) }),
                    "start_address": .optional(all.startAddress) { .string($0.description) },
                    "image": .object([
                        "base_address": .int(Int(base)), "size": .int(image.count), "sha256": .string(digest),
                    ]),
                    "vector_table": vectorJSON(vectors),
                ])
            )
            return
        }
        var lines: [(String, String)] = [("file", name), ("format", "Intel HEX")]
        for (index, region) in all.regions.enumerated() {
            lines.append((index == 0 ? "regions" : "", "\(region) (\(region.count) bytes)"))
        }
        lines.append(("start address", all.startAddress?.description ?? "-"))
        lines.append(
            ("DFU image", "\(image.count) bytes at \(hex(base, width: 8)) (MBR and UICR dropped, padded to 4)"))
        lines.append(("sha256", digest))
        Console.result(aligned(lines + vectorLines(vectors)))
    }

    private func printBinary(_ bytes: [UInt8], name: String) {
        let digest = hexString(SHA256.hash(bytes))
        let vectors = ARMVectorTable(image: bytes, loadAddress: nil)
        if outputOptions.json {
            Console.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion), "kind": .string("bin"), "file": .string(name),
                    "size": .int(bytes.count), "sha256": .string(digest), "vector_table": vectorJSON(vectors),
                ])
            )
            return
        }
        let lines = [("file", name), ("format", "binary"), ("size", "\(bytes.count) bytes"), ("sha256", digest)]
        Console.result(aligned(lines + vectorLines(vectors)))
    }

    private func vectorLines(_ vectors: ARMVectorTable?) -> [(String, String)] {
        guard let vectors else { return [("vector table", "none found (not a Cortex-M application image?)")] }
        return [
            ("initial SP", hex(vectors.initialStackPointer, width: 8)),
            ("reset handler", hex(vectors.resetHandler, width: 8)),
        ]
    }

    private func vectorJSON(_ vectors: ARMVectorTable?) -> JSONValue {
        .optional(vectors) { vectors in
            .object([
                "initial_stack_pointer": .int(Int(vectors.initialStackPointer)),
                "reset_handler": .int(Int(vectors.resetHandler)),
            ])
        }
    }
}

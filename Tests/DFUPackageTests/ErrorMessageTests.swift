import Testing

@testable import DFUPackage

@Suite struct ErrorMessageTests {
    @Test(
        "every error reads as one lowercase line naming the problem and the place",
        arguments: [
            (
                DFUPackageError.notZipArchive(archive: "app.zip"),
                "app.zip: no end-of-central-directory record found; not a zip archive, or truncated"
            ),
            (
                .truncatedArchive(archive: "app.zip", region: .centralDirectory),
                "app.zip: archive is truncated in the central directory"
            ),
            (
                .truncatedArchive(archive: "app.zip", region: .entryData(entry: "a.bin")),
                "app.zip: archive is truncated in the data of 'a.bin'"
            ),
            (
                .truncatedArchive(archive: "app.zip", region: .endRecord),
                "app.zip: archive is truncated in the end-of-central-directory record"
            ),
            (
                .badSignature(archive: "app.zip", region: .localHeader(entry: "a.bin")),
                "app.zip: the local header of 'a.bin' has a bad signature"
            ),
            (
                .truncatedArchive(archive: "app.zip", region: .dataDescriptor(entry: "a.bin")),
                "app.zip: archive is truncated in the data descriptor of 'a.bin'"
            ),
            (.zip64NotSupported(archive: "app.zip"), "app.zip: zip64 archives are not supported"),
            (.multiDiskNotSupported(archive: "app.zip"), "app.zip: archives spanning several disks are not supported"),
            (.encryptedEntry(archive: "app.zip", entry: "a.bin"), "app.zip: entry 'a.bin' is encrypted"),
            (
                .unsupportedCompressionMethod(archive: "app.zip", entry: "a.bin", method: 12),
                "app.zip: entry 'a.bin' uses compression method 12; only stored (0) and deflated (8) work"
            ),
            (
                .unsafeEntryName(archive: "app.zip", entry: "../x", reason: .parentComponent),
                "app.zip: entry '../x' escapes the archive"
            ),
            (
                .unsafeEntryName(archive: "app.zip", entry: "/x", reason: .absolutePath),
                "app.zip: entry '/x' is an absolute path"
            ),
            (
                .unsafeEntryName(archive: "app.zip", entry: "a\\b", reason: .backslash),
                "app.zip: entry 'a\\b' contains a backslash"
            ),
            (
                .unsafeEntryName(archive: "app.zip", entry: "", reason: .invalidCharacter),
                "app.zip: entry '' is empty or contains a control character"
            ),
            (.duplicateEntry(archive: "app.zip", entry: "a.bin"), "app.zip: entry 'a.bin' appears more than once"),
            (
                .localNameMismatch(archive: "app.zip", entry: "a.bin", localName: "b.bin"),
                "app.zip: entry 'a.bin' is named 'b.bin' in its local header"
            ),
            (
                .dataDescriptorMismatch(archive: "app.zip", entry: "a.bin"),
                "app.zip: the data descriptor of 'a.bin' disagrees with the central directory"
            ),
            (
                .entryTooLarge(archive: "app.zip", entry: "a.bin", size: 20_000_000, limit: 16_777_216),
                "app.zip: entry 'a.bin' declares 20000000 bytes, more than the limit of 16777216"
            ),
            (
                .archiveTooLarge(archive: "app.zip", size: 70_000_000, limit: 67_108_864),
                "app.zip: entries declare 70000000 bytes in total, more than the limit of 67108864"
            ),
            (
                .inflatedSizeExceedsDeclared(archive: "app.zip", entry: "a.bin", declared: 1000),
                "app.zip: entry 'a.bin' inflates to more than its declared 1000 bytes"
            ),
            (
                .entrySizeMismatch(archive: "app.zip", entry: "a.bin", declared: 12, actual: 10),
                "app.zip: entry 'a.bin' holds 10 bytes, the directory says 12"
            ),
            (
                .corruptCompressedData(archive: "app.zip", entry: "a.bin"),
                "app.zip: entry 'a.bin' has corrupt deflate data"
            ),
            (
                .entryCRCMismatch(archive: "app.zip", entry: "a.bin", expected: 0x3D24_DD49, actual: 0xABC),
                "app.zip: entry 'a.bin' has CRC-32 0x00000ABC, the directory says 0x3D24DD49"
            ),
            (.missingManifest(archive: "app.zip"), "app.zip: archive has no manifest.json"),
            (.invalidManifest(archive: "app.zip", problem: .notJSON), "app.zip: manifest.json is not a JSON object"),
            (
                .invalidManifest(archive: "app.zip", problem: .missingKey(path: "manifest.application.dat_file")),
                "app.zip: manifest.json has no 'manifest.application.dat_file'"
            ),
            (
                .invalidManifest(archive: "app.zip", problem: .invalidValue(path: "manifest.dfu_version")),
                "app.zip: manifest.json has an invalid value at 'manifest.dfu_version'"
            ),
            (
                .invalidManifest(archive: "app.zip", problem: .noImages),
                "app.zip: manifest.json lists no application, bootloader, softdevice or softdevice_bootloader"
            ),
            (
                .missingFile(archive: "app.zip", file: "x.bin"),
                "app.zip: manifest.json names 'x.bin', which is not in the archive"
            ),
            (
                .manifestMismatch(
                    file: "sd.zip/sd_bl.dat", field: "bl_size", manifestValue: "404", initPacketValue: "400"),
                "sd.zip/sd_bl.dat: init packet says bl_size is 400, manifest.json says 404"
            ),
            (
                .invalidInitPacket(file: "nrf52832_xxaa.dat", offset: 37, problem: .truncated),
                "nrf52832_xxaa.dat: init packet is truncated at byte 37"
            ),
            (
                .invalidInitPacket(file: "a.dat", offset: 3, problem: .overlongVarint),
                "a.dat: init packet has an overlong varint at byte 3"
            ),
            (
                .invalidInitPacket(file: "a.dat", offset: 0, problem: .invalidFieldNumber(0)),
                "a.dat: init packet has invalid field number 0 at byte 0"
            ),
            (
                .invalidInitPacket(file: "a.dat", offset: 0, problem: .unsupportedWireType(3)),
                "a.dat: init packet has unsupported wire type 3 at byte 0"
            ),
            (
                .invalidInitPacket(
                    file: "a.dat", offset: 2, problem: .wrongWireType(field: "Command.op_code", wireType: 2)),
                "a.dat: init packet has 'Command.op_code' with wrong wire type 2 at byte 2"
            ),
            (
                .invalidInitPacket(
                    file: "a.dat", offset: 5, problem: .valueOutOfRange(field: "InitCommand.fw_version", value: 1 << 32)
                ), "a.dat: init packet has 'InitCommand.fw_version' = 4294967296, out of range, at byte 5"
            ),
            (
                .invalidInitPacket(
                    file: "a.dat", offset: 5, problem: .unknownEnumValue(field: "InitCommand.type", value: 9)),
                "a.dat: init packet has 'InitCommand.type' = 9, an unknown value, at byte 5"
            ),
            (
                .invalidInitPacket(file: "a.dat", offset: 14, problem: .trailingBytes(count: 1)),
                "a.dat: init packet has 1 extra byte at byte 14"
            ),
            (
                .invalidInitPacket(file: "a.dat", offset: 12, problem: .unknownExtension(id: 3)),
                "a.dat: init packet has unknown extension id 3 at byte 12"
            ),
            (.emptyInitPacket(file: "a.dat"), "a.dat: init packet holds neither 'command' nor 'signed_command'"),
            (.ambiguousInitPacket(file: "a.dat"), "a.dat: init packet holds both 'command' and 'signed_command'"),
            (
                .missingField(file: "a.dat", field: "InitCommand.app_size"),
                "a.dat: init packet has no 'InitCommand.app_size'"
            ),
            (
                .imageSizeMismatch(file: "app.zip/app.bin", actual: 1000, declared: 1004),
                "app.zip/app.bin: image is 1000 bytes, init packet says 1004"
            ),
            (
                .imageHashMismatch(file: "a.bin", actual: [0xAB, 0x01], declared: [0xCD, 0x02]),
                "a.bin: image SHA-256 is ab01, init packet says cd02"
            ),
            (
                .imageCRC16Mismatch(file: "a.bin", actual: 0x566, declared: 0x9ED9),
                "a.bin: image CRC-16 is 0x0566, init packet says 0x9ED9"
            ),
            (
                .unsupportedHashType(file: "a.dat", hashType: .crc),
                "a.dat: init packet hash type is CRC; bootloaders accept only SHA256"
            ),
            (
                .imageTypeMismatch(file: "a.dat", manifest: .application, initPacket: .bootloader),
                "a.dat: manifest.json lists it as 'application', init packet says BOOTLOADER"
            ),
        ] as [(DFUPackageError, String)])
    func message(error: DFUPackageError, text: String) {
        #expect(error.description == text)
        #expect(!text.contains("\n"))
        #expect(text.first?.isUppercase == false)
    }
}

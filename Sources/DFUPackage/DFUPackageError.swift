import Checksums

/// Everything that can be wrong with a firmware package, its archive, its manifest or an init packet.
///
/// Every case is caused by input data, never by a programming error, so the CLI maps the whole enum to the
/// "bad input data" exit status. Each case carries the display name of the file it is about: the archive's name
/// as the user gave it (for example `app.zip`), or `archive/entry` for a file inside it
/// (`app.zip/nrf52832_xxaa.dat`), and the position or values the user needs to find the problem.
package enum DFUPackageError: Error, Sendable, Equatable {
    // MARK: Zip container

    /// No end-of-central-directory record was found: the input is not a zip archive, or it was cut short.
    case notZipArchive(archive: String)
    /// A structure runs past the end of the archive (or past the area that should contain it).
    case truncatedArchive(archive: String, region: ZipRegion)
    /// A size, offset or count in the archive's records points outside the bytes that could hold it.
    case fieldOutOfRange(archive: String, region: ZipRegion, field: String, value: Int, bound: ZipBound)
    /// A structure does not start with its signature.
    case badSignature(archive: String, region: ZipRegion)
    /// The archive uses zip64 records, which this reader does not implement (packages are far below 4 GiB).
    case zip64NotSupported(archive: String)
    /// The archive claims to span several disks.
    case multiDiskNotSupported(archive: String)
    /// An entry is encrypted.
    case encryptedEntry(archive: String, entry: String)
    /// An entry uses a compression method other than stored (0) or deflated (8).
    case unsupportedCompressionMethod(archive: String, entry: String, method: UInt16)
    /// An entry's name could escape the extraction folder or is otherwise unsafe.
    case unsafeEntryName(archive: String, entry: String, reason: UnsafeNameReason)
    /// Two entries have the same name.
    case duplicateEntry(archive: String, entry: String)
    /// An entry's local header names a different file than its central directory record.
    case localNameMismatch(archive: String, entry: String, localName: String)
    /// An entry's data descriptor disagrees with its central directory record.
    case dataDescriptorMismatch(archive: String, entry: String)
    /// An entry declares more uncompressed bytes than ``ZipArchive/Limits`` allow.
    case entryTooLarge(archive: String, entry: String, size: Int, limit: Int)
    /// The entries together declare more uncompressed bytes than ``ZipArchive/Limits`` allow.
    case archiveTooLarge(archive: String, size: Int, limit: Int)
    /// Inflating an entry produced more bytes than its declared size (a zip bomb or a lying directory).
    case inflatedSizeExceedsDeclared(archive: String, entry: String, declared: Int)
    /// An entry holds fewer (or, when stored, a different number of) bytes than its declared size.
    case entrySizeMismatch(archive: String, entry: String, declared: Int, actual: Int)
    /// An entry's deflate stream is corrupt or ends early.
    case corruptCompressedData(archive: String, entry: String)
    /// An entry's CRC-32 differs from the one in the central directory.
    case entryCRCMismatch(archive: String, entry: String, expected: UInt32, actual: UInt32)

    // MARK: Manifest

    /// The archive has no `manifest.json`.
    case missingManifest(archive: String)
    /// The `manifest.json` cannot be used.
    case invalidManifest(archive: String, problem: ManifestProblem)
    /// The manifest names a file that is not in the archive.
    case missingFile(archive: String, file: String)
    /// The manifest and the init packet disagree about a value.
    case manifestMismatch(file: String, field: String, manifestValue: String, initPacketValue: String)

    // MARK: Init packets

    /// An init packet cannot be decoded; `offset` is the byte position in the `.dat` file.
    case invalidInitPacket(file: String, offset: Int, problem: InitPacketProblem)
    /// A protobuf init packet has neither `command` nor `signed_command`.
    case emptyInitPacket(file: String)
    /// A protobuf init packet has both `command` and `signed_command`.
    case ambiguousInitPacket(file: String)
    /// A field that is required (by `dfu-cc.proto`, or by the bootloader for this image type) is absent.
    case missingField(file: String, field: String)

    // MARK: Image validation

    /// The image's length differs from the size the init packet (or manifest) declares.
    case imageSizeMismatch(file: String, actual: Int, declared: Int)
    /// The image's SHA-256 differs from the init packet's hash; both in the usual most-significant-first order.
    case imageHashMismatch(file: String, actual: [UInt8], declared: [UInt8])
    /// The image's CRC-16 differs from the legacy init packet's.
    case imageCRC16Mismatch(file: String, actual: UInt16, declared: UInt16)
    /// The init packet uses a hash the bootloaders do not accept (only SHA-256 is).
    case unsupportedHashType(file: String, hashType: HashType)
    /// The manifest files the image under one type and the init packet declares another.
    case imageTypeMismatch(file: String, manifest: DFUPackage.ImageType, initPacket: FirmwareType)

    // MARK: Generating init packets

    /// An image (or one half of a SoftDevice with bootloader) to generate a part from has no bytes.
    case emptyImage(file: String, imageType: DFUPackage.ImageType)
    /// An image (or one half) is not a multiple of 4 bytes, which bootloaders cannot write to flash.
    case imageNotWordAligned(file: String, imageType: DFUPackage.ImageType, size: Int)
    /// An image is larger than an init packet's `uint32` sizes can describe.
    case imageTooLarge(file: String, size: Int)
    /// Secure DFU options give no `sd_req`; bootloaders need at least one FWID (0x00 for none).
    case emptySoftDeviceRequirement(file: String)
    /// More `boot_validation` entries than bootloaders decode.
    case tooManyBootValidations(file: String, count: Int, limit: Int)
    /// `VALIDATE_ECDSA_P256_SHA256` boot validation was asked for without a signing key.
    case bootValidationNeedsSigner(file: String)
    /// The generated init packet is larger than bootloaders accept.
    case initPacketTooLarge(file: String, size: Int, limit: Int)
    /// Two generated parts have the same image type.
    case duplicatePart(package: String, imageType: DFUPackage.ImageType)
    /// Generated parts mix Secure and legacy init packets.
    case mixedPartFormats(package: String)
}

/// A structure inside a zip archive, named in ``DFUPackageError`` messages.
package enum ZipRegion: Sendable, Equatable {
    /// The end-of-central-directory record.
    case endRecord
    /// The central directory.
    case centralDirectory
    /// One entry's record in the central directory.
    case directoryEntry(entry: String)
    /// The local file header of an entry.
    case localHeader(entry: String)
    /// The (compressed) data of an entry.
    case entryData(entry: String)
    /// The data descriptor that follows an entry's data (general purpose flag bit 3).
    case dataDescriptor(entry: String)
}

/// The limit a zip field's value went past, named in ``DFUPackageError/fieldOutOfRange(archive:region:field:value:bound:)``.
package enum ZipBound: Sendable, Equatable {
    /// The offset of the end-of-central-directory record.
    case endRecord(Int)
    /// The offset where the central directory starts (entry data must end before it).
    case directoryStart(Int)
    /// How many bytes there are for the field to describe.
    case bytesAvailable(Int)
    /// How many 46-byte directory headers the directory's size can hold.
    case entriesFitting(Int)
}

extension ZipBound: CustomStringConvertible {
    /// The bound as a phrase completing "… is N, …".
    package var description: String {
        switch self {
        case .endRecord(let offset): "past the end-of-central-directory record at byte \(offset)"
        case .directoryStart(let offset): "at or past the central directory, which starts at byte \(offset)"
        case .bytesAvailable(let count): "more than the \(count) bytes there are"
        case .entriesFitting(let count): "more than the directory's size can hold (\(count))"
        }
    }
}

/// Why an entry name is refused.
package enum UnsafeNameReason: Sendable, Equatable {
    /// A `..` path component.
    case parentComponent
    /// A leading `/` or a drive letter.
    case absolutePath
    /// A backslash, which Windows tools treat as a separator.
    case backslash
    /// An empty name, or one containing NUL or another control character.
    case invalidCharacter
}

/// What is wrong with a `manifest.json`.
package enum ManifestProblem: Sendable, Equatable {
    /// The file is not JSON, or its top level is not an object.
    case notJSON
    /// A required key is absent; the path is dotted, e.g. `manifest.application.bin_file`.
    case missingKey(path: String)
    /// A key's value has the wrong type or is out of range.
    case invalidValue(path: String)
    /// The manifest lists none of `application`, `bootloader`, `softdevice`, `softdevice_bootloader`.
    case noImages
    /// A key nrfutil and adafruit-nrfutil never write (a misspelt or renamed part would otherwise be skipped).
    case unknownKey(path: String, known: [String])
    /// A number that cannot be true: `reason` says what it contradicts.
    case impossibleValue(path: String, value: Int, reason: String)
}

/// What is wrong with the bytes of an init packet.
package enum InitPacketProblem: Sendable, Equatable {
    /// The data ends inside a field; the error's offset is where it ends.
    case truncated
    /// A varint is longer than 10 bytes or overflows 64 bits.
    case overlongVarint
    /// A field number is 0 or above 2^29 − 1.
    case invalidFieldNumber(UInt64)
    /// A wire type that protobuf never uses (6, 7) or deprecated groups (3, 4).
    case unsupportedWireType(UInt8)
    /// A known field arrived with the wrong wire type.
    case wrongWireType(field: String, wireType: UInt8)
    /// A `uint32` field holds a larger value.
    case valueOutOfRange(field: String, value: UInt64)
    /// An enum field holds a value `dfu-cc.proto` does not define.
    case unknownEnumValue(field: String, value: UInt64)
    /// A legacy init packet has bytes after its last field.
    case trailingBytes(count: Int)
    /// A legacy init packet's extension id is not 0, 1 or 2.
    case unknownExtension(id: UInt32)
}

extension DFUPackageError: CustomStringConvertible {
    /// One line naming the problem and where it is, lowercase first, without an `Error:` prefix.
    package var description: String {
        switch self {
        case .notZipArchive(let archive):
            "\(archive): no end-of-central-directory record found; not a zip archive, or truncated"
        case .truncatedArchive(let archive, let region):
            "\(archive): archive is truncated in \(region)"
        case .fieldOutOfRange(let archive, let region, let field, let value, let bound):
            "\(archive): \(field) in \(region) is \(value), \(bound)"
        case .badSignature(let archive, let region):
            "\(archive): \(region) has a bad signature"
        case .zip64NotSupported(let archive):
            "\(archive): zip64 archives are not supported"
        case .multiDiskNotSupported(let archive):
            "\(archive): archives spanning several disks are not supported"
        case .encryptedEntry(let archive, let entry):
            "\(archive): entry '\(entry)' is encrypted"
        case .unsupportedCompressionMethod(let archive, let entry, let method):
            "\(archive): entry '\(entry)' uses compression method \(method); only stored (0) and deflated (8) work"
        case .unsafeEntryName(let archive, let entry, let reason):
            "\(archive): entry '\(entry)' \(reason)"
        case .duplicateEntry(let archive, let entry):
            "\(archive): entry '\(entry)' appears more than once"
        case .localNameMismatch(let archive, let entry, let localName):
            "\(archive): entry '\(entry)' is named '\(localName)' in its local header"
        case .dataDescriptorMismatch(let archive, let entry):
            "\(archive): the data descriptor of '\(entry)' disagrees with the central directory"
        case .entryTooLarge(let archive, let entry, let size, let limit):
            "\(archive): entry '\(entry)' declares \(size) bytes, more than the limit of \(limit)"
        case .archiveTooLarge(let archive, let size, let limit):
            "\(archive): entries declare \(size) bytes in total, more than the limit of \(limit)"
        case .inflatedSizeExceedsDeclared(let archive, let entry, let declared):
            "\(archive): entry '\(entry)' inflates to more than its declared \(declared) bytes"
        case .entrySizeMismatch(let archive, let entry, let declared, let actual):
            "\(archive): entry '\(entry)' holds \(actual) bytes, the directory says \(declared)"
        case .corruptCompressedData(let archive, let entry):
            "\(archive): entry '\(entry)' has corrupt deflate data"
        case .entryCRCMismatch(let archive, let entry, let expected, let actual):
            "\(archive): entry '\(entry)' has CRC-32 \(hex(actual, width: 8)), the directory says \(hex(expected, width: 8))"
        case .missingManifest(let archive):
            "\(archive): archive has no manifest.json"
        case .invalidManifest(let archive, let problem):
            "\(archive): manifest.json \(problem)"
        case .missingFile(let archive, let file):
            "\(archive): manifest.json names '\(file)', which is not in the archive"
        case .manifestMismatch(let file, let field, let manifestValue, let initPacketValue):
            "\(file): init packet says \(field) is \(initPacketValue), manifest.json says \(manifestValue)"
        case .invalidInitPacket(let file, let offset, let problem):
            "\(file): init packet \(problem.phrase(at: offset))"
        case .emptyInitPacket(let file):
            "\(file): init packet holds neither 'command' nor 'signed_command'"
        case .ambiguousInitPacket(let file):
            "\(file): init packet holds both 'command' and 'signed_command'"
        case .missingField(let file, let field):
            "\(file): init packet has no '\(field)'"
        case .imageSizeMismatch(let file, let actual, let declared):
            "\(file): image is \(actual) bytes, init packet says \(declared)"
        case .imageHashMismatch(let file, let actual, let declared):
            "\(file): image SHA-256 is \(hexString(actual)), init packet says \(hexString(declared))"
        case .imageCRC16Mismatch(let file, let actual, let declared):
            "\(file): image CRC-16 is \(hex(actual, width: 4)), init packet says \(hex(declared, width: 4))"
        case .unsupportedHashType(let file, let hashType):
            "\(file): init packet hash type is \(hashType); bootloaders accept only SHA256"
        case .imageTypeMismatch(let file, let manifest, let initPacket):
            "\(file): manifest.json lists it as '\(manifest.rawValue)', init packet says \(initPacket)"
        case .emptyImage(let file, let imageType):
            "\(file): the \(imageType.noun) image is empty"
        case .imageNotWordAligned(let file, let imageType, let size):
            "\(file): the \(imageType.noun) image is \(size) bytes, not a multiple of 4; pad it with 0xFF"
        case .imageTooLarge(let file, let size):
            "\(file): image is \(size) bytes, more than an init packet can describe"
        case .emptySoftDeviceRequirement(let file):
            "\(file): no SoftDevice requirement given; list the FWIDs the image runs on, or 0x00 for none"
        case .tooManyBootValidations(let file, let count, let limit):
            "\(file): \(count) boot validations requested; bootloaders accept at most \(limit)"
        case .bootValidationNeedsSigner(let file):
            "\(file): boot validation VALIDATE_ECDSA_P256_SHA256 needs a signing key"
        case .initPacketTooLarge(let file, let size, let limit):
            "\(file): generated init packet is \(size) bytes; bootloaders accept at most \(limit)"
        case .duplicatePart(let package, let imageType):
            "\(package): more than one '\(imageType.rawValue)' image"
        case .mixedPartFormats(let package):
            "\(package): Secure and legacy DFU images cannot share a package"
        }
    }
}

extension ZipRegion: CustomStringConvertible {
    /// The region as a noun phrase, such as "the local header of 'app.bin'".
    package var description: String {
        switch self {
        case .endRecord: "the end-of-central-directory record"
        case .centralDirectory: "the central directory"
        case .directoryEntry(let entry): "the directory entry of '\(entry)'"
        case .localHeader(let entry): "the local header of '\(entry)'"
        case .entryData(let entry): "the data of '\(entry)'"
        case .dataDescriptor(let entry): "the data descriptor of '\(entry)'"
        }
    }
}

extension UnsafeNameReason: CustomStringConvertible {
    /// The reason as a predicate completing "entry 'x' …".
    package var description: String {
        switch self {
        case .parentComponent: "escapes the archive"
        case .absolutePath: "is an absolute path"
        case .backslash: "contains a backslash"
        case .invalidCharacter: "is empty or contains a control character"
        }
    }
}

extension ManifestProblem: CustomStringConvertible {
    /// The problem as a predicate completing "manifest.json …".
    package var description: String {
        switch self {
        case .notJSON: "is not a JSON object"
        case .missingKey(let path): "has no '\(path)'"
        case .invalidValue(let path): "has an invalid value at '\(path)'"
        case .noImages: "lists no application, bootloader, softdevice or softdevice_bootloader"
        case .unknownKey(let path, let known):
            "has an unknown key '\(path)'; known keys there: \(known.joined(separator: ", "))"
        case .impossibleValue(let path, let value, let reason): "has '\(path)' = \(value), \(reason)"
        }
    }
}

extension InitPacketProblem {
    /// The problem as a predicate completing "init packet …", placed at `offset`.
    func phrase(at offset: Int) -> String {
        switch self {
        case .truncated: "is truncated at byte \(offset)"
        case .overlongVarint: "has an overlong varint at byte \(offset)"
        case .invalidFieldNumber(let number): "has invalid field number \(number) at byte \(offset)"
        case .unsupportedWireType(let wireType): "has unsupported wire type \(wireType) at byte \(offset)"
        case .wrongWireType(let field, let wireType):
            "has '\(field)' with wrong wire type \(wireType) at byte \(offset)"
        case .valueOutOfRange(let field, let value): "has '\(field)' = \(value), out of range, at byte \(offset)"
        case .unknownEnumValue(let field, let value): "has '\(field)' = \(value), an unknown value, at byte \(offset)"
        case .trailingBytes(let count): "has \(count) extra byte\(count == 1 ? "" : "s") at byte \(offset)"
        case .unknownExtension(let id): "has unknown extension id \(id) at byte \(offset)"
        }
    }
}

extension DFUPackage.ImageType {
    /// The kind of image in words, for messages: "application", "SoftDevice", "bootloader",
    /// "SoftDevice with bootloader".
    var noun: String {
        switch self {
        case .application: "application"
        case .softdevice: "SoftDevice"
        case .bootloader: "bootloader"
        case .softdeviceBootloader: "SoftDevice with bootloader"
        }
    }
}

/// Formats `value` as `0x` and at least `width` uppercase hex digits.
func hex(_ value: some BinaryInteger, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

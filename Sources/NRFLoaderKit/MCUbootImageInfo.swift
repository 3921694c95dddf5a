package import MCUbootImage

/// What inspecting a signed MCUboot image shows: what `imgtool dumpinfo` shows (the header, both TLV areas, the
/// trailer), the SHA-256 TLV checked, and the signature checked when a key was given.
public struct MCUbootImageInfo: Sendable {
    /// One TLV entry.
    public struct TLV: Sendable, Equatable {
        /// The type, such as 0x10 for `SHA256`.
        public let type: UInt16
        /// The type's name as imgtool gives it, or `UNKNOWN`.
        public let typeName: String
        /// The value.
        public let value: [UInt8]
    }

    /// A TLV area: the protected one (covered by the hash) or the other.
    public struct TLVArea: Sendable, Equatable {
        /// The area's magic: 0x6908 for the unprotected area, 0x6907 for the protected one.
        public let magic: UInt16
        /// The area's offset in the image file.
        public let offset: Int
        /// The area's size in bytes, its header included (`tlv_tot`).
        public let totalSize: Int
        /// The entries, in file order.
        public let entries: [TLV]

        init(_ area: MCUbootTLVArea) {
            magic = area.magic
            offset = area.offset
            totalSize = area.totalSize
            entries = area.entries.map { TLV(type: $0.type, typeName: $0.typeName, value: $0.value) }
        }
    }

    /// The image trailer `imgtool --pad` writes after the TLVs.
    public struct Trailer: Sendable, Equatable {
        /// The trailer's magic bytes.
        public let magic: [UInt8]
        /// The largest write alignment the magic is valid for, or `nil` for an invalid magic.
        public let maximumAlignment: Int?
        /// The trailer's size in bytes, padding included.
        public let paddedSize: Int
        /// `image_ok`, or `nil` when not present.
        public let imageOK: UInt8?
        /// `copy_done`, or `nil` when not present.
        public let copyDone: UInt8?
        /// `swap_info`, or `nil` when not present.
        public let swapInfo: UInt8?
        /// `swap_size`, or `nil` when not present.
        public let swapSize: UInt32?
    }

    /// The swap the trailer asks for once the image is in the secondary slot.
    public enum SwapRequest: String, Sendable, CaseIterable {
        /// A test swap: MCUboot reverts unless the image confirms itself (`imgtool --pad`).
        case test
        /// A permanent swap (`imgtool --confirm`).
        case permanent
    }

    /// The result of checking the image's signature with a key.
    public enum SignatureCheck: Sendable {
        /// The signature verifies with the key in `keyFile`, of type `keyType` (`ECDSA P-256` or `ed25519`).
        case verified(keyFile: String, keyType: String)
        /// The signature is missing or does not verify.
        case failed(UpdateError)
    }

    /// The file's name: its path, `<stdin>`, the catalog's file name, or the package entry's name.
    public let file: String
    /// The image file's size in bytes.
    public let size: Int
    /// The header's magic, `IMAGE_MAGIC` (0x96f3b83d).
    public let headerMagic: UInt32
    /// The load address the header names.
    public let loadAddress: UInt32
    /// The header's size in bytes (`hdr_size`).
    public let headerSize: Int
    /// The protected TLV area's size in bytes (`protected_tlv_size`).
    public let protectedTLVSize: Int
    /// The image body's size in bytes (`img_size`).
    public let imageSize: Int
    /// The header's flags.
    public let flags: UInt32
    /// The names of the flags set, as imgtool gives them.
    public let flagNames: [String]
    /// The version, as `major.minor.revision+build`.
    public let version: String
    /// The protected TLV area, if the image has one.
    public let protectedTLVs: TLVArea?
    /// The unprotected TLV area.
    public let tlvs: TLVArea
    /// The trailer, if the image has one.
    public let trailer: Trailer?
    /// The swap the trailer asks for, if any.
    public let swapAfterUpload: SwapRequest?
    /// The value of the SHA-256 TLV, if any.
    public let storedHash: [UInt8]?
    /// Why the SHA-256 TLV does not match the image, or `nil` when it matches.
    public let hashError: UpdateError?
    /// The signature check, or `nil` when no key was given.
    public let signatureCheck: SignatureCheck?

    package init(image: MCUbootImage, key: MCUbootVerificationKey?) {
        file = image.file
        size = image.bytes.count
        headerMagic = MCUbootImageHeader.magic
        loadAddress = image.header.loadAddress
        headerSize = image.header.headerSize
        protectedTLVSize = image.header.protectedTLVSize
        imageSize = image.header.imageSize
        flags = image.header.flags
        flagNames = image.header.flagNames
        version = image.header.version.description
        protectedTLVs = image.protectedTLVs.map(TLVArea.init)
        tlvs = TLVArea(image.tlvs)
        trailer = image.trailer.map {
            Trailer(
                magic: $0.magic, maximumAlignment: $0.maximumAlignment, paddedSize: $0.paddedSize,
                imageOK: $0.imageOK, copyDone: $0.copyDone, swapInfo: $0.swapInfo, swapSize: $0.swapSize)
        }
        swapAfterUpload = image.swapRequestedByTrailer.map { $0 == .permanent ? .permanent : .test }
        storedHash = image.storedHash
        do throws(MCUbootImageError) {
            _ = try image.verifiedHash()
            hashError = nil
        } catch {
            hashError = UpdateError(error)
        }
        if let key {
            do throws(MCUbootImageError) {
                try key.verify(image)
                signatureCheck = .verified(keyFile: key.file, keyType: key.kind.description)
            } catch {
                signatureCheck = .failed(UpdateError(error))
            }
        } else {
            signatureCheck = nil
        }
    }

    /// The first check that failed (the SHA-256 TLV, then the signature), reported after the rest is shown; else
    /// `nil`.
    public var verificationFailure: UpdateError? {
        if let hashError { return hashError }
        if case .failed(let error)? = signatureCheck { return error }
        return nil
    }
}

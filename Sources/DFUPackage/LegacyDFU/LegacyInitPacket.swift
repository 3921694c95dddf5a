import Checksums

/// A legacy DFU init packet (nRF5 SDK 7–11, `dfu_init_packet_t`): a packed little-endian struct.
///
/// Layout (dfu-protocols.md §1.7; nrfutil 0.5.x / adafruit-nrfutil `init_packet.py`), every field little-endian:
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 2 | device_type |
/// | 2 | 2 | device_revision |
/// | 4 | 4 | application_version |
/// | 8 | 2 | n = number of SoftDevice FWIDs |
/// | 10 | 2·n | softdevice_req, 0xFFFE = any |
/// | 10 + 2n | … | ``Validation`` |
///
/// The stock SDK 7–11 bootloader reads only the 0.5 layout (a bare CRC-16 after the list); the extended layouts
/// work only with bootloaders built for them.
package struct LegacyInitPacket: Sendable, Equatable {
    /// How the image is identified after the SoftDevice list; the case is chosen by nrfutil's `--dfu-ver`.
    package enum Validation: Sendable, Equatable {
        /// dfu_ver ≤ 0.5: CRC-16/CCITT-FALSE of the image, u16. 2 bytes.
        case crc16(UInt16)
        /// dfu_ver 0.6: extension id u32 = 0, then the CRC-16, u16. 6 bytes.
        case extendedCRC16(UInt16)
        /// dfu_ver 0.7: extension id u32 = 1, image length u32, SHA-256 of the image (32 bytes, **not** reversed,
        /// unlike Secure DFU). 40 bytes.
        case sha256(firmwareLength: UInt32, digest: [UInt8])
        /// dfu_ver 0.8: as ``sha256(firmwareLength:digest:)`` with extension id 2, followed by an ECDSA P-256
        /// signature r‖s (64 bytes, big-endian) over every byte before it. 104 bytes.
        case signedSHA256(firmwareLength: UInt32, digest: [UInt8], signature: [UInt8])
    }

    /// Which ``Validation`` the generator computes.
    package enum Format: Sendable, CaseIterable {
        /// dfu_ver 0.5, what stock bootloaders and adafruit-nrfutil's default expect.
        case crc16
        /// dfu_ver 0.6.
        case extendedCRC16
        /// dfu_ver 0.7.
        case sha256
    }

    /// device_type, u16 at offset 0; 0xFFFF (nrfutil's default) matches any device.
    package var deviceType: UInt16
    /// device_revision, u16 at offset 2; 0xFFFF matches any.
    package var deviceRevision: UInt16
    /// application_version, u32 at offset 4; 0xFFFFFFFF by default.
    package var applicationVersion: UInt32
    /// softdevice_req: u16 count at offset 8, then one u16 FWID each; 0xFFFE accepts any SoftDevice.
    package var softdeviceReq: [UInt16]
    /// The extension after the SoftDevice list.
    package var validation: Validation

    /// Creates a packet from its fields; defaults are nrfutil's.
    ///
    /// - Parameters:
    ///   - deviceType: Offset 0.
    ///   - deviceRevision: Offset 2.
    ///   - applicationVersion: Offset 4.
    ///   - softdeviceReq: Offset 8 onwards.
    ///   - validation: The extension.
    package init(
        deviceType: UInt16 = 0xFFFF,
        deviceRevision: UInt16 = 0xFFFF,
        applicationVersion: UInt32 = 0xFFFF_FFFF,
        softdeviceReq: [UInt16] = [0xFFFE],
        validation: Validation
    ) {
        self.deviceType = deviceType
        self.deviceRevision = deviceRevision
        self.applicationVersion = applicationVersion
        self.softdeviceReq = softdeviceReq
        self.validation = validation
    }

    /// Generates the packet for `image`, computing its CRC-16 or SHA-256 as nrfutil 0.5.x does.
    ///
    /// - Parameters:
    ///   - deviceType: Offset 0.
    ///   - deviceRevision: Offset 2.
    ///   - applicationVersion: Offset 4.
    ///   - softdeviceReq: Offset 8 onwards.
    ///   - image: The firmware `.bin` (for SoftDevice with bootloader, both concatenated).
    ///   - format: Which extension to compute; 0.5's bare CRC-16 by default.
    package init(
        deviceType: UInt16 = 0xFFFF,
        deviceRevision: UInt16 = 0xFFFF,
        applicationVersion: UInt32 = 0xFFFF_FFFF,
        softdeviceReq: [UInt16] = [0xFFFE],
        image: [UInt8],
        format: Format = .crc16
    ) {
        let validation: Validation =
            switch format {
            case .crc16: .crc16(CRC16.checksum(image))
            case .extendedCRC16: .extendedCRC16(CRC16.checksum(image))
            case .sha256: .sha256(firmwareLength: UInt32(truncatingIfNeeded: image.count), digest: SHA256.hash(image))
            }
        self.init(
            deviceType: deviceType, deviceRevision: deviceRevision, applicationVersion: applicationVersion,
            softdeviceReq: softdeviceReq, validation: validation)
    }

    /// Decodes a legacy `.dat` file; the extension is recognised by its length and id.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - file: Display name for errors.
    /// - Throws: `invalidInitPacket` with `truncated`, `valueOutOfRange` (a SoftDevice count longer than the file),
    ///   `trailingBytes` or `unknownExtension`.
    package init(decoding bytes: [UInt8], file: String) throws(DFUPackageError) {
        func truncated() -> DFUPackageError {
            .invalidInitPacket(file: file, offset: bytes.count, problem: .truncated)
        }
        func u16(_ offset: Int) throws(DFUPackageError) -> UInt16 {
            guard let value = bytes.littleEndian(UInt16.self, at: offset) else { throw truncated() }
            return value
        }
        func u32(_ offset: Int) throws(DFUPackageError) -> UInt32 {
            guard let value = bytes.littleEndian(UInt32.self, at: offset) else { throw truncated() }
            return value
        }
        deviceType = try u16(0)
        deviceRevision = try u16(2)
        applicationVersion = try u32(4)
        let count = Int(try u16(8))
        // A count whose list alone would run past the file cannot be true: name it rather than a bare truncation.
        guard 10 + 2 * count <= bytes.count else {
            throw .invalidInitPacket(
                file: file, offset: 8, problem: .valueOutOfRange(field: "softdevice_req count", value: UInt64(count)))
        }
        softdeviceReq = []
        for index in 0..<count { softdeviceReq.append(try u16(10 + 2 * index)) }
        let start = 10 + 2 * count
        let remaining = bytes.count - start
        let expectedLength: Int
        switch remaining {
        case ..<2:
            throw truncated()
        case 2, 3:
            validation = .crc16(try u16(start))
            expectedLength = 2
        default:
            let id = try u32(start)
            switch id {
            case 0:
                validation = .extendedCRC16(try u16(start + 4))
                expectedLength = 6
            case 1, 2:
                let length = try u32(start + 4)
                guard start + 40 <= bytes.count else { throw truncated() }
                let digest = Array(bytes[(start + 8)..<(start + 40)])
                if id == 1 {
                    validation = .sha256(firmwareLength: length, digest: digest)
                    expectedLength = 40
                } else {
                    guard start + 104 <= bytes.count else { throw truncated() }
                    let signature = Array(bytes[(start + 40)..<(start + 104)])
                    validation = .signedSHA256(firmwareLength: length, digest: digest, signature: signature)
                    expectedLength = 104
                }
            default:
                throw .invalidInitPacket(file: file, offset: start, problem: .unknownExtension(id: id))
            }
        }
        guard remaining == expectedLength else {
            throw .invalidInitPacket(
                file: file, offset: start + expectedLength, problem: .trailingBytes(count: remaining - expectedLength))
        }
    }

    /// The packed little-endian struct, byte-identical to nrfutil 0.5.x and adafruit-nrfutil output.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(deviceType)
        bytes.appendLittleEndian(deviceRevision)
        bytes.appendLittleEndian(applicationVersion)
        bytes.appendLittleEndian(UInt16(truncatingIfNeeded: softdeviceReq.count))
        for requirement in softdeviceReq { bytes.appendLittleEndian(requirement) }
        switch validation {
        case .crc16(let crc):
            bytes.appendLittleEndian(crc)
        case .extendedCRC16(let crc):
            bytes.appendLittleEndian(UInt32(0))
            bytes.appendLittleEndian(crc)
        case .sha256(let length, let digest):
            bytes.appendLittleEndian(UInt32(1))
            bytes.appendLittleEndian(length)
            bytes += digest
        case .signedSHA256(let length, let digest, let signature):
            bytes.appendLittleEndian(UInt32(2))
            bytes.appendLittleEndian(length)
            bytes += digest + signature
        }
        return bytes
    }

    /// For dfu_ver 0.8 packets, the signed bytes and signature; nil for the other layouts.
    package var signedMessage: SignedMessage? {
        guard case .signedSHA256(_, _, let signature) = validation else { return nil }
        let bytes = encoded()
        return SignedMessage(
            message: Array(bytes[..<(bytes.count - signature.count)]), signatureType: .ecdsaP256SHA256,
            signature: signature)
    }

    /// Checks that `image` matches the packet's CRC-16, or its length and SHA-256.
    ///
    /// - Parameters:
    ///   - image: The firmware `.bin`.
    ///   - imageFile: The image's display name, for errors.
    /// - Throws: `imageCRC16Mismatch`, `imageSizeMismatch`, `imageHashMismatch`.
    package func validate(image: [UInt8], imageFile: String) throws(DFUPackageError) {
        switch validation {
        case .crc16(let declared), .extendedCRC16(let declared):
            let actual = CRC16.checksum(image)
            guard actual == declared else {
                throw .imageCRC16Mismatch(file: imageFile, actual: actual, declared: declared)
            }
        case .sha256(let length, let digest), .signedSHA256(let length, let digest, _):
            guard image.count == Int(length) else {
                throw .imageSizeMismatch(file: imageFile, actual: image.count, declared: Int(length))
            }
            let actual = SHA256.hash(image)
            guard actual == digest else { throw .imageHashMismatch(file: imageFile, actual: actual, declared: digest) }
        }
    }
}

import Checksums
package import MCUbootImage

/// Builds hash-only MCUboot images (what `imgtool sign` without a key writes): the simulated device's own running
/// image, and test images.
package enum UnsignedImageBuilder {
    /// An image with a 32-byte header, `body`, and a TLV area holding the SHA-256 TLV.
    ///
    /// - Parameters:
    ///   - version: The header's version.
    ///   - body: The body.
    ///   - loadAddress: The header's load address.
    /// - Returns: The image's bytes.
    package static func image(version: MCUbootVersion, body: [UInt8], loadAddress: UInt32 = 0) -> [UInt8] {
        var header: [UInt8] = []
        func append32(_ value: UInt32) {
            for shift in [0, 8, 16, 24] { header.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
        }
        func append16(_ value: UInt16) { header += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        append32(MCUbootImageHeader.magic)
        append32(loadAddress)
        append16(UInt16(MCUbootImageHeader.size))
        append16(0)
        append32(UInt32(body.count))
        append32(0)
        header += [version.major, version.minor]
        append16(version.revision)
        append32(version.build)
        append32(0)
        let hashed = header + body
        let hash = SHA256.hash(hashed)
        let tlvs: [UInt8] = [0x07, 0x69, 0x28, 0x00, 0x10, 0x00, 0x20, 0x00] + hash
        return hashed + tlvs
    }
}

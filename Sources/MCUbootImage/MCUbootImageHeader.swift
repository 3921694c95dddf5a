/// The 32-byte image header (`struct image_header`, MCUboot `boot/bootutil/include/bootutil/image.h`), all fields
/// little-endian.
///
/// | offset | field |
/// | --- | --- |
/// | 0 | `ih_magic` u32: 0x96f3b83d |
/// | 4 | `ih_load_addr` u32 |
/// | 8 | `ih_hdr_size` u16: header plus padding; the body starts here |
/// | 10 | `ih_protect_tlv_size` u16: the protected TLV area with its info header, 0 when absent |
/// | 12 | `ih_img_size` u32: the body, without header |
/// | 16 | `ih_flags` u32: `IMAGE_F_*` |
/// | 20 | `ih_ver`: major u8, minor u8, revision u16, build number u32 |
/// | 28 | padding u32 |
package struct MCUbootImageHeader: Sendable, Equatable {
    /// `IMAGE_MAGIC`.
    package static let magic: UInt32 = 0x96f3_b83d
    /// `IMAGE_HEADER_SIZE`.
    package static let size = 32

    /// `ih_load_addr`.
    package var loadAddress: UInt32
    /// `ih_hdr_size`.
    package var headerSize: Int
    /// `ih_protect_tlv_size`.
    package var protectedTLVSize: Int
    /// `ih_img_size`.
    package var imageSize: Int
    /// `ih_flags`.
    package var flags: UInt32
    /// `ih_ver`.
    package var version: MCUbootVersion

    /// The names of the set flags, as imgtool's `IMAGE_F` table spells them.
    package var flagNames: [String] {
        let names: [(UInt32, String)] = [
            (0x01, "PIC"), (0x04, "ENCRYPTED_AES128"), (0x08, "ENCRYPTED_AES256"), (0x10, "NON_BOOTABLE"),
            (0x20, "RAM_LOAD"), (0x100, "ROM_FIXED"), (0x200, "COMPRESSED_LZMA1"), (0x400, "COMPRESSED_LZMA2"),
            (0x800, "COMPRESSED_ARM_THUMB"),
        ]
        return names.filter { flags & $0.0 != 0 }.map(\.1)
    }
}

/// `struct image_version`: `major.minor.revision+build`.
package struct MCUbootVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// `iv_major`.
    package var major: UInt8
    /// `iv_minor`.
    package var minor: UInt8
    /// `iv_revision`.
    package var revision: UInt16
    /// `iv_build_num`.
    package var build: UInt32

    /// Creates a version.
    package init(major: UInt8, minor: UInt8, revision: UInt16, build: UInt32) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.build = build
    }

    /// `1.2.3+4`, as imgtool prints it.
    package var description: String { "\(major).\(minor).\(revision)+\(build)" }

    /// `1.2.3` or `1.2.3.4`, as Zephyr's image state answer writes it (`img_mgmt_ver_str`: the build number only
    /// when it is not 0).
    package var smpDescription: String {
        build == 0 ? "\(major).\(minor).\(revision)" : "\(major).\(minor).\(revision).\(build)"
    }

    package static func < (lhs: MCUbootVersion, rhs: MCUbootVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.revision, lhs.build) < (rhs.major, rhs.minor, rhs.revision, rhs.build)
    }
}

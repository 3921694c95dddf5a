import HexConverter

/// Turns a firmware file into the `.bin` bytes nrfutil 6.1.7 (`nrfhex.py`) and adafruit-nrfutil put in a package.
///
/// The conventions, which differ from a plain conversion:
/// - A `.bin` input is taken as it is, at address 0.
/// - Any other input is Intel HEX. Data at or above 0x10000000 (UICR) and below 0x1000 (MBR) is dropped, and the
///   image starts no lower than the end of the MBR: 0x1000, or 0x3000 when the image carries a SoftDevice info
///   structure magic (0x51B1E5DB) at 0x4004, 0x5004, 0x6004 or 0x7004 (an S132-style SoftDevice) and none at 0x3004.
/// - Gaps are filled with 0xFF and the size is rounded up to a multiple of 4, padded with 0xFF.
package enum NordicBinary {
    /// The SoftDevice info structure magic number nrfutil looks for.
    static let infoMagic: UInt32 = 0x51B1_E5DB

    /// Converts `contents`, named `path`, as nrfutil does.
    ///
    /// adafruit-nrfutil (a fork of nrfutil 0.5) drops only the UICR: MBR data then still counts for the lowest address,
    /// so an image with MBR bytes starts at the end of the MBR rather than at its own first byte.
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - path: The file's path as the user gave it; `.bin` at the end means binary.
    ///   - dropsMBR: Drop data below 0x1000 before finding the lowest address (nrfutil 6.1.7), or not (adafruit).
    /// - Returns: The image bytes, a multiple of 4 long.
    /// - Throws: ``PackageBuilderError/badHex(_:)`` for a malformed HEX file, `emptyImage` when nothing is left.
    package static func image(_ contents: [UInt8], path: String, dropsMBR: Bool = true) throws(PackageBuilderError)
        -> [UInt8]
    {
        if path.hasSuffix(".bin") {
            guard !contents.isEmpty else { throw .emptyImage(path: path) }
            return padded(contents)
        }
        let hex: HexImage
        do {
            hex = try IntelHexParser.parse(
                contents, source: path, window: dropsMBR ? .nordic : AddressWindow(start: 0, end: 0x1000_0000))
        } catch {
            throw .badHex(error)
        }
        guard let lowest = hex.lowestAddress, let last = hex.regions.last else { throw .emptyImage(path: path) }
        let flat = hex.binary(fill: 0xFF)
        let regions = hex.regions
        func word(at address: UInt32) -> UInt32? {
            guard regions.contains(where: { $0.start <= address && address + 3 <= $0.end }) else { return nil }
            let offset = Int(address - lowest)
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(flat[offset + $1]) << (8 * $1) }
        }
        var mbrEnd: UInt32 = 0x1000
        if word(at: 0x3004) != infoMagic,
            [0x4004, 0x5004, 0x6004, 0x7004].contains(where: { word(at: $0) == infoMagic })
        {
            mbrEnd = 0x3000
        }
        let start = max(mbrEnd, lowest)
        guard start <= last.end else { throw .emptyImage(path: path) }
        return padded(Array(flat[Int(start - lowest)...]))
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0xFF, count: (4 - bytes.count % 4) % 4)
    }

    /// The name nrfutil gives the converted file: the path's last component with every `.hex` replaced by `.bin`.
    ///
    /// - Parameter path: The input path.
    /// - Returns: The `.bin` entry name.
    package static func binName(for path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        return name.replacingAll(".hex", with: ".bin")
    }

    /// The init packet's name: the `.bin` name with every `.bin` replaced by `.dat`.
    ///
    /// - Parameter binName: The image entry's name.
    /// - Returns: The `.dat` entry name.
    package static func datName(for binName: String) -> String {
        binName.replacingAll(".bin", with: ".dat")
    }
}

extension String {
    /// Python's `str.replace(old, new)`: every non-overlapping occurrence, left to right.
    func replacingAll(_ old: String, with new: String) -> String {
        let source = Array(utf8)
        let pattern = Array(old.utf8)
        var result: [UInt8] = []
        var index = 0
        while index < source.count {
            if index + pattern.count <= source.count, Array(source[index..<index + pattern.count]) == pattern {
                result += new.utf8
                index += pattern.count
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

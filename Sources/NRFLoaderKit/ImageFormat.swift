/// What kind of input a file holds: by its content where that is certain (a zip's signature), else by its
/// extension, else by its first character.
package enum ImageFormat {
    /// A DFU package: a zip archive (`PK\u{3}\u{4}`) or a `.zip` name.
    case package
    case intelHex
    case binary

    package init(path: String, contents: [UInt8]) {
        let lowered = path.lowercased()
        if contents.starts(with: [0x50, 0x4B, 0x03, 0x04]) || lowered.hasSuffix(".zip") {
            self = .package
        } else if [".hex", ".ihex", ".ihx"].contains(where: { lowered.hasSuffix($0) }) {
            self = .intelHex
        } else if lowered.hasSuffix(".bin") {
            self = .binary
        } else {
            let first = contents.first { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 }
            self = first == UInt8(ascii: ":") ? .intelHex : .binary
        }
    }
}

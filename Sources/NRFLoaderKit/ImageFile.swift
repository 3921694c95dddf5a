package import PackageBuilder

/// A firmware image file, `.hex` or `.bin`, as package and settings generation take it: its name (whose extension
/// tells the format) and its bytes.
public struct ImageFile: Sendable {
    /// The file's path or name; a `.hex` extension (any case) makes it Intel HEX, any other a binary image.
    public var path: String
    /// The file's bytes.
    public var contents: [UInt8]

    /// An image from bytes in memory.
    ///
    /// - Parameters:
    ///   - path: The name, whose extension tells the format.
    ///   - contents: The bytes.
    public init(path: String, contents: [UInt8]) {
        self.path = path
        self.contents = contents
    }

    /// Reads an image file, or standard input for `-`.
    ///
    /// - Parameter path: The file's path.
    /// - Throws: ``UpdateError`` for a missing or unreadable file.
    public init(contentsOfFile path: String) throws(UpdateError) {
        self.init(path: path, contents: try UpdateError.wrapping { try InputFile(path: path).readAll() })
    }

    package var inputImage: InputImage { InputImage(path: path, contents: contents) }
}

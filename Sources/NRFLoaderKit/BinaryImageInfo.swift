/// What inspecting a binary image (`.bin`) shows: its size, SHA-256 and vector table.
public struct BinaryImageInfo: Sendable {
    /// The file's name: its path, or `<stdin>`.
    public let file: String
    /// The size in bytes.
    public let size: Int
    /// The SHA-256 of the file.
    public let sha256: [UInt8]
    /// The vector table, when the image looks like a Cortex-M application.
    public let vectorTable: CortexMVectorTable?
}

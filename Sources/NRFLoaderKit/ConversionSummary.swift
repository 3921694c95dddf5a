/// What a conversion made: the image's place in memory, its size and SHA-256, and the input's regions.
public struct ConversionSummary: Sendable, Equatable {
    /// The format of a conversion's output.
    public enum Format: String, Sendable, CaseIterable {
        /// A binary image.
        case bin
        /// Intel HEX.
        case hex
    }

    /// The input's name: its path, or `<stdin>`.
    public let input: String
    /// The output's name, from ``ConversionOutput/displayName``.
    public let output: String
    /// The output's format.
    public let format: Format
    /// The address of the binary image's first byte.
    public let baseAddress: UInt32
    /// The size of the binary image in bytes.
    public let size: Int
    /// The regions that hold data: those of the HEX file kept, or the one region of a binary input.
    public let regions: [MemoryRegion]
    /// The start address the HEX file declares, if any.
    public let startAddress: HexStartAddress?
    /// The SHA-256 of the binary image (the output's for HEX to binary, the input's for binary to HEX).
    public let sha256: [UInt8]
}

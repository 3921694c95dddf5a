/// How an Intel HEX file becomes a binary image: the address window kept, the byte that fills gaps, and whether
/// Nordic's package tools' rules apply.
public struct BinaryImageOptions: Sendable, Equatable {
    /// The byte for addresses without data.
    public var fill: UInt8 = 0xFF
    /// Data below this address is dropped.
    public var start: UInt32 = 0
    /// Data at or above this address is dropped (at most 2³², the end of the address space).
    public var end: UInt64 = 1 << 32
    /// Whether to do what Nordic's package tools do: drop the MBR (below 0x1000) and the UICR (from 0x10000000 on),
    /// and pad the image to a multiple of 4 bytes.
    public var followsNordicTools = false

    /// The whole file, gaps filled with 0xFF.
    public init() {}
}

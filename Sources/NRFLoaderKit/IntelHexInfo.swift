/// What inspecting an Intel HEX file shows: its regions and start address, and the DFU image Nordic's tools would
/// make of it (the MBR and UICR dropped, padded to 4 bytes).
public struct IntelHexInfo: Sendable {
    /// The file's name: its path, or `<stdin>`.
    public let file: String
    /// Every region with data, the MBR and UICR included.
    public let regions: [MemoryRegion]
    /// The start address the file declares, if any.
    public let startAddress: HexStartAddress?
    /// The address of the DFU image's first byte.
    public let imageBaseAddress: UInt32
    /// The DFU image's size in bytes.
    public let imageSize: Int
    /// The DFU image's SHA-256.
    public let imageSHA256: [UInt8]
    /// The DFU image's vector table, when it looks like a Cortex-M application.
    public let vectorTable: CortexMVectorTable?
}

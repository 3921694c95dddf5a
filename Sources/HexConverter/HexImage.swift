/// The data of an Intel HEX file by address, and the binary image it makes.
///
/// The binary runs from the lowest to the highest address that holds data; gaps between regions are filled.
/// Start-address records are kept as ``startAddress`` and never become bytes.
package struct HexImage {
    private let memory: SparseMemory

    /// The execution start address the file declared (record type 03 or 05), if any.
    package let startAddress: StartAddress?

    init(memory: SparseMemory, startAddress: StartAddress?) {
        self.memory = memory
        self.startAddress = startAddress
    }

    /// Every contiguous run of addresses that holds data, lowest first.
    package var regions: [HexRegion] { memory.regions() }

    /// Whether the file holds no data in the window it was read with.
    package var isEmpty: Bool { memory.bounds == nil }

    /// The lowest address that holds data.
    package var lowestAddress: UInt32? { memory.bounds?.low }

    /// The size of the binary image in bytes: from the lowest to the highest address with data, then rounded up
    /// to a multiple of `alignment`.
    ///
    /// - Parameter alignment: The length is padded up to a multiple of this (1 for none; Nordic's tools use 4).
    /// - Returns: The length, 0 for an empty image.
    package func binarySize(alignment: Int = 1) -> Int {
        guard let bounds = memory.bounds else { return 0 }
        let span = Int(bounds.high - bounds.low) + 1
        return (span + alignment - 1) / alignment * alignment
    }

    /// Hands the binary image to `body` in pieces of at most 64 KiB, lowest address first.
    ///
    /// - Parameters:
    ///   - fill: The byte for addresses without data (gaps and alignment padding).
    ///   - alignment: The length is padded with `fill` up to a multiple of this.
    ///   - body: Receives each piece; the buffer is valid only during the call.
    /// - Throws: Whatever `body` throws.
    package func forEachChunk<E: Error>(
        fill: UInt8 = 0xFF,
        alignment: Int = 1,
        _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Void
    ) throws(E) {
        guard let bounds = memory.bounds else { return }
        let total = binarySize(alignment: alignment)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: MemoryPage.size)
        defer { scratch.deallocate() }
        var address = UInt64(bounds.low)
        let end = address + UInt64(total)
        while address < end {
            let pageIndex = UInt32(truncatingIfNeeded: address >> 16)
            let offset = Int(address & 0xFFFF)
            let length = Int(min(UInt64(MemoryPage.size - offset), end - address))
            let dataEnd = UInt64(bounds.high) + 1
            if let page = memory.pages[pageIndex], address < dataEnd {
                if fill == 0xFF && address + UInt64(length) <= dataEnd {
                    try body(UnsafeBufferPointer(start: page.bytes + offset, count: length))
                } else {
                    for i in 0..<length {
                        let inData = address + UInt64(i) < dataEnd
                        scratch[i] = inData && page.isWritten(offset + i) ? page.bytes[offset + i] : fill
                    }
                    try body(UnsafeBufferPointer(start: scratch, count: length))
                }
            } else {
                scratch.update(repeating: fill, count: length)
                try body(UnsafeBufferPointer(start: scratch, count: length))
            }
            address += UInt64(length)
        }
    }

    /// The whole binary image as one array.
    ///
    /// - Parameters:
    ///   - fill: The byte for addresses without data.
    ///   - alignment: The length is padded with `fill` up to a multiple of this.
    /// - Returns: The bytes from the lowest to the highest address with data, padded.
    package func binary(fill: UInt8 = 0xFF, alignment: Int = 1) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(binarySize(alignment: alignment))
        forEachChunk(fill: fill, alignment: alignment) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

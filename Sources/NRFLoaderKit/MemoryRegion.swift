package import HexConverter

/// A run of consecutive addresses that hold data, such as one region of an Intel HEX file.
public struct MemoryRegion: Sendable, Equatable, CustomStringConvertible {
    /// The first address.
    public let start: UInt32
    /// The last address (inclusive).
    public let end: UInt32

    /// A region from `start` through `end`.
    ///
    /// - Parameters:
    ///   - start: The first address.
    ///   - end: The last address, inclusive; not below `start`.
    public init(start: UInt32, end: UInt32) {
        precondition(start <= end, "a memory region ends at or after its start")
        self.start = start
        self.end = end
    }

    package init(_ region: HexRegion) {
        self.init(start: region.start, end: region.end)
    }

    /// The region's size in bytes.
    public var count: Int { Int(end - start) + 1 }

    /// `0x00001000–0x00001FFF`.
    public var description: String { HexRegion(start: start, end: end).description }
}

/// A contiguous run of addresses that hold data, both ends inclusive.
public struct HexRegion: Sendable, Equatable, CustomStringConvertible {
    /// The first address with data.
    public var start: UInt32
    /// The last address with data.
    public var end: UInt32

    /// Creates a region from its first and last address.
    ///
    /// - Parameters:
    ///   - start: The first address.
    ///   - end: The last address, not below `start`.
    public init(start: UInt32, end: UInt32) {
        precondition(start <= end, "region start \(start) is above its end \(end)")
        self.start = start
        self.end = end
    }

    /// The number of bytes in the region.
    public var count: Int { Int(end - start) + 1 }

    public var description: String { "\(hex(start, width: 8))–\(hex(end, width: 8))" }
}

/// A contiguous run of addresses that hold data, both ends inclusive.
package struct HexRegion: Sendable, Equatable, CustomStringConvertible {
    /// The first address with data.
    package var start: UInt32
    /// The last address with data.
    package var end: UInt32

    /// Creates a region from its first and last address.
    ///
    /// - Parameters:
    ///   - start: The first address.
    ///   - end: The last address, not below `start`.
    package init(start: UInt32, end: UInt32) {
        precondition(start <= end, "region start \(start) is above its end \(end)")
        self.start = start
        self.end = end
    }

    /// The number of bytes in the region.
    package var count: Int { Int(end - start) + 1 }

    package var description: String { "\(hex(start, width: 8))–\(hex(end, width: 8))" }
}

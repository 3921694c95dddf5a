extension [UInt8] {
    /// Returns the little-endian integer of type `T` at `offset`, or nil when it does not fit in the array.
    ///
    /// - Parameters:
    ///   - type: The integer type, whose byte width is read.
    ///   - offset: Index of the least significant byte.
    /// - Returns: The value, or nil if `offset ..< offset + width` is out of bounds.
    func littleEndian<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type, at offset: Int) -> T? {
        let width = T.bitWidth / 8
        guard offset >= 0, offset <= count - width else { return nil }
        var value: T = 0
        for index in 0..<width {
            value |= T(self[offset + index]) << (8 * index)
        }
        return value
    }

    /// Appends `value` least significant byte first.
    ///
    /// - Parameter value: The integer to append; its full width is written.
    mutating func appendLittleEndian<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        for index in 0..<(T.bitWidth / 8) {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}

/// The part of the address space a conversion keeps: `--start`, `--end` and `--nordic` in the CLI.
///
/// Data outside the window is dropped while the file is read, so it neither counts towards the image size
/// limit nor takes memory.
package struct AddressWindow: Sendable, Equatable, CustomStringConvertible {
    /// The first address kept.
    package var start: UInt32
    /// One past the last address kept; `nil` keeps everything up to the top of the address space.
    package var end: UInt64

    /// Keeps `start ..< end`.
    ///
    /// - Parameters:
    ///   - start: The first address kept.
    ///   - end: One past the last address kept (at most 2³²).
    package init(start: UInt32 = 0, end: UInt64 = 1 << 32) {
        precondition(UInt64(start) < end && end <= 1 << 32, "empty or out-of-range window \(start)..<\(end)")
        self.start = start
        self.end = end
    }

    /// What Nordic's package tools keep: everything above the MBR (0x0000–0x0FFF) and below UICR
    /// (0x10001000, the whole 0x10000000 block: FICR and UICR are never part of a DFU image).
    ///
    /// nrfutil's `nRFHex` removes data below 0x1000 and at or above 0x10000000 before it writes a `.bin`.
    package static let nordic = AddressWindow(start: 0x1000, end: 0x1000_0000)

    /// Whether the window keeps every address.
    package var isEverything: Bool { start == 0 && end == 1 << 32 }

    /// The window narrowed to the addresses both windows keep, or `nil` if they share none.
    ///
    /// - Parameter other: The other window.
    /// - Returns: The intersection, or `nil` when it is empty.
    package func intersection(_ other: AddressWindow) -> AddressWindow? {
        let low = max(start, other.start)
        let high = min(end, other.end)
        return UInt64(low) < high ? AddressWindow(start: low, end: high) : nil
    }

    package var description: String {
        if isEverything { return "in the file" }
        return "between \(hex(start, width: 8)) and \(hex(end - 1, width: 8))"
    }
}

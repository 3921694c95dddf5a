/// The first two words of a Cortex-M image: the initial stack pointer and the reset handler.
///
/// Shown by `nrfloader info` so a user can see at a glance whether a `.bin` is an application linked for the
/// address they think: the MBR and SoftDevice jump to the reset handler found at the application's start.
package struct ARMVectorTable: Sendable, Equatable {
    /// Word 0: the stack pointer loaded at reset.
    package var initialStackPointer: UInt32
    /// Word 1: the reset handler's address, with bit 0 set (Thumb).
    package var resetHandler: UInt32

    /// Reads the vector table of `image` if it looks like a Cortex-M application for an nRF5 chip.
    ///
    /// It looks like one when the stack pointer is word-aligned inside nRF5 RAM (0x20000000 to 0x20040000,
    /// the nRF52840's 256 KiB) and the reset handler is a Thumb address inside the first 1 MiB of flash (and inside
    /// the image, when its load address is known).
    ///
    /// - Parameters:
    ///   - image: The binary image.
    ///   - loadAddress: The flash address of its first byte, if known.
    package init?(image: [UInt8], loadAddress: UInt32?) {
        guard image.count >= 8 else { return nil }
        func word(_ offset: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(image[offset + $1]) << (8 * UInt32($1)) }
        }
        let stackPointer = word(0)
        let reset = word(4)
        guard (0x2000_0000...0x2004_0000).contains(stackPointer), stackPointer % 4 == 0 else { return nil }
        guard reset & 1 == 1, reset < 0x10_0000 else { return nil }
        if let loadAddress {
            let end = UInt64(loadAddress) + UInt64(image.count)
            guard reset >= loadAddress, UInt64(reset) < end else { return nil }
        }
        initialStackPointer = stackPointer
        resetHandler = reset
    }
}

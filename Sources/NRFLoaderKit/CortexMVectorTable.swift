package import Catalog

/// The first two words of a Cortex-M application image: the initial stack pointer and the reset handler.
///
/// They show at a glance whether an image is an application linked for the address one thinks: the MBR and the
/// SoftDevice jump to the reset handler found at the application's start.
public struct CortexMVectorTable: Sendable, Equatable {
    /// Word 0: the stack pointer loaded at reset.
    public let initialStackPointer: UInt32
    /// Word 1: the reset handler's address, with bit 0 set (Thumb).
    public let resetHandler: UInt32

    package init(_ table: ARMVectorTable) {
        initialStackPointer = table.initialStackPointer
        resetHandler = table.resetHandler
    }

    /// The vector table of `image` when it looks like a Cortex-M application for an nRF5 chip: the stack pointer
    /// word-aligned in nRF5 RAM, the reset handler a Thumb address in the first 1 MiB of flash (and in the image,
    /// when its load address is known).
    ///
    /// - Parameters:
    ///   - image: The binary image.
    ///   - loadAddress: The flash address of its first byte, if known.
    /// - Returns: The table, or `nil` when the image does not look like an application.
    static func of(_ image: [UInt8], loadAddress: UInt32?) -> CortexMVectorTable? {
        ARMVectorTable(image: image, loadAddress: loadAddress).map(CortexMVectorTable.init)
    }
}

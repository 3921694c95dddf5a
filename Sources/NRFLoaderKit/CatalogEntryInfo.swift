/// What inspecting a catalog entry shows: every field of the entry, its image's vector table and, for an MCUboot
/// entry, what ``MCUbootImageInfo`` shows of the image.
public struct CatalogEntryInfo: Sendable {
    /// The entry.
    public let item: CatalogItem
    /// The vector table, when the image looks like a Cortex-M application (for an MCUboot image: the one after
    /// its header).
    public let vectorTable: CortexMVectorTable?
    /// For an MCUboot entry: the image; else `nil`.
    public let mcubootImage: MCUbootImageInfo?
}

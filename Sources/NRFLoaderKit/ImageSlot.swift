package import SMP

/// One image slot as an MCUboot device reports it (MCUmgr image group, state read): what `nrfloader image list`
/// prints on one line.
public struct ImageSlot: Sendable, Hashable {
    /// The image number: 0, or with several updatable images (nRF5340's network core) 1, 2, ….
    public let image: Int
    /// The slot of the image: 0 (primary, the one that runs) or 1 (secondary, where uploads go).
    public let slot: Int
    /// The image's version as the device words it: `major.minor.revision`, with `.build` for a build number.
    ///
    /// It is the device's text: escape it before printing it on a terminal.
    public let version: String
    /// The image's SHA-256 hash (its TLV), 32 bytes: what ``SMPDevice/testImage(hash:)`` and
    /// ``SMPDevice/confirmImage(hash:)`` take.
    public let hash: [UInt8]
    /// Whether MCUboot can boot the image.
    public let isBootable: Bool
    /// Whether MCUboot swaps to the image on the next reset.
    public let isPending: Bool
    /// Whether the image is confirmed: MCUboot does not revert it on a reset.
    public let isConfirmed: Bool
    /// Whether the image is running.
    public let isActive: Bool
    /// Whether the pending swap is permanent (the image was confirmed by hash before it ran).
    public let isPermanent: Bool

    package init(_ state: ImageSlotState) {
        image = state.image
        slot = state.slot
        version = state.version
        hash = state.hash
        isBootable = state.isBootable
        isPending = state.isPending
        isConfirmed = state.isConfirmed
        isActive = state.isActive
        isPermanent = state.isPermanent
    }
}

import Checksums
package import DFUSimulator

extension SimulatedTarget.Image: Equatable {
    /// The CRC-32 (IEEE, as zlib and Nordic's DFU compute it) of ``bytes``.
    public var crc32: UInt32 { CRC32.checksum(bytes) }

    /// Whether two images have the same name and bytes.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.bytes == rhs.bytes }
}

extension SimulatedTarget {
    /// The images an nRF5 device activated at once, in the order of their names (`application`, `bootloader`,
    /// `softdevice`).
    package static func images(_ activated: [DFUSimulator.FirmwareType: [UInt8]]) -> [Image] {
        let names: [DFUSimulator.FirmwareType: String] = [
            .application: "application", .softDevice: "softdevice", .bootloader: "bootloader",
        ]
        return activated.compactMap { type, bytes in names[type].map { Image(name: $0, bytes: bytes) } }
            .sorted { $0.name < $1.name }
    }
}

extension SimulatedTarget {
    /// Slots of an SMP device, whole: `slot0`, `slot1` for image 0, `slot2`, `slot3` for image 1, ….
    package static func images(slots: [[UInt8]]) -> [Image] {
        slots.enumerated().map { Image(name: "slot\($0.offset)", bytes: $0.element) }
    }
}

/// Build options of the simulated legacy DFU bootloader.
package struct LegacyBootloaderOptions: Sendable {
    /// Which generation of the legacy protocol the bootloader speaks.
    package var generation: LegacyGeneration
    /// UICR device type; 0xFFFF accepts any init packet device type (SDK 11 `dfu_init_template.c`).
    package var deviceType: UInt16 = 0xFFFF
    /// UICR device revision; 0xFFFF accepts any.
    package var deviceRevision: UInt16 = 0xFFFF
    /// FWID of the running SoftDevice, matched against the init packet's list (0xFFFE there accepts any).
    ///
    /// 0x0087 = s130 2.0.1 (SDK 11).
    package var softDeviceFWID: UInt16 = 0x0087
    /// Bytes available for a received image (larger gets status 4).
    ///
    /// A simulator choice.
    package var bankSize = 0x1_F000
    /// Inactivity timeout after which the bootloader resets: 120 s in SDK 11 (60 s in SDK 5/6).
    package var inactivityTimeout: Duration = .seconds(120)

    /// Creates options for a generation.
    ///
    /// - Parameter generation: The protocol generation.
    package init(generation: LegacyGeneration) {
        self.generation = generation
    }
}

/// Legacy DFU generations the simulator speaks (dfu-protocols.md §1.1).
package enum LegacyGeneration: Equatable, Sendable {
    /// SDK 4.3–5.x ("DFU v1", what nRF Loader speaks): no Version characteristic, Start DFU is a bare `01`,
    /// a 4-byte size packet, an optional 2-byte CRC16 init packet after a bare `02`.
    case v1
    /// SDK 9–11, Version characteristic 0.8: `01 tt`, 12-byte size packet, mandatory init packet between
    /// `02 00` and `02 01`.
    case sdk11
}

/// The Secure DFU init command fields that nrfutil `pkg generate` takes as options; the image gives the rest
/// (`type`, the sizes and the hash).
///
/// Defaults are nrfutil's (`package.py`): `DEFAULT_APP_VERSION` 0xFFFFFFFF, `DEFAULT_DEBUG_MODE` false, no
/// `boot_validation` unless asked.
package struct SecureInitOptions: Sendable, Equatable {
    /// `fw_version`, nrfutil's `--application-version` or `--bootloader-version`.
    ///
    /// The bootloader compares it for downgrade prevention (app: ≥ stored, bootloader: > stored). SoftDevice
    /// images always get 0xFFFFFFFF, as nrfutil writes for them whatever the options say.
    package var fwVersion: UInt32
    /// `hw_version` (`--hw-version`): must equal the bootloader's value, 52 for nRF52 in Nordic's examples.
    package var hwVersion: UInt32
    /// `sd_req` (`--sd-req`): accepted SoftDevice FWIDs; 0x00 first means "no SoftDevice needed".
    ///
    /// Written in the given order with repeats dropped. nrfutil passes the list through a Python `set`, which
    /// also drops repeats but orders by CPython's hash table; bootloaders treat the list as a set either way.
    package var sdReq: [UInt32]
    /// `is_debug` (`--debug-mode`): debug bootloaders then skip the version checks.
    package var isDebug: Bool
    /// The `boot_validation` types to write, in order (nrfutil 5.0+, bootloaders from SDK 15.3).
    ///
    /// Empty leaves the field out, which SDK 12–15.2 bootloaders need. nrfutil's own choice is
    /// `[VALIDATE_GENERATED_CRC]` for one image and `[SoftDevice's, bootloader's]` for SoftDevice with bootloader.
    /// At most 3 (`dfu-cc.options`).
    ///
    /// `VALIDATE_ECDSA_P256_SHA256` needs a signer: it signs the image (for SoftDevice with bootloader, entry 0
    /// signs the SoftDevice and entry 1 the bootloader, the regions the bootloader checks them against).
    package var bootValidation: [ValidationType]

    /// Creates options.
    ///
    /// - Parameters:
    ///   - fwVersion: `fw_version`; 0xFFFFFFFF (nrfutil's default) when not given.
    ///   - hwVersion: `hw_version`.
    ///   - sdReq: `sd_req`.
    ///   - isDebug: `is_debug`.
    ///   - bootValidation: `boot_validation` types, in order.
    package init(
        fwVersion: UInt32 = 0xFFFF_FFFF,
        hwVersion: UInt32,
        sdReq: [UInt32],
        isDebug: Bool = false,
        bootValidation: [ValidationType] = []
    ) {
        self.fwVersion = fwVersion
        self.hwVersion = hwVersion
        self.sdReq = sdReq
        self.isDebug = isDebug
        self.bootValidation = bootValidation
    }
}

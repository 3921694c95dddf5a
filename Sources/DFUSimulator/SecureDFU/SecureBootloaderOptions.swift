/// Build options of the simulated Secure DFU bootloader, named after the SDK's `sdk_config.h` settings.
package struct SecureBootloaderOptions: Sendable {
    /// `NRF_DFU_HW_VERSION`: the init packet's `hw_version` must equal it.
    ///
    /// 52 in the SDK's nRF52 examples.
    package var hardwareVersion: UInt32 = 52
    /// FWID of the running SoftDevice, or `nil` when none is present.
    ///
    /// 0xA8 = s132 6.0.0 (SDK 15.0).
    package var softDeviceFWID: UInt32? = 0xA8
    /// Stored application version (`s_dfu_settings.app_version`).
    package var applicationVersion: UInt32 = 0
    /// Stored bootloader version (`s_dfu_settings.bootloader_version`).
    package var bootloaderVersion: UInt32 = 0
    /// `NRF_DFU_APP_DOWNGRADE_PREVENTION`, 1 in the SDK 15–17 examples.
    package var preventsApplicationDowngrade = true
    /// `NRF_DFU_APP_ACCEPT_SAME_VERSION`; `nrf_dfu_ver_validation.c` defaults it to 1.
    package var acceptsSameApplicationVersion = true
    /// `NRF_DFU_DEBUG`: a debug bootloader skips hardware, SoftDevice and version checks when `is_debug` is set.
    package var isDebugBuild = false
    /// `NRF_DFU_SAVE_PROGRESS_IN_FLASH`: whether executed data objects survive a reset.
    ///
    /// When `false`, a reset
    /// rewinds the data offset to 0 (settings were last written when the init packet was executed).
    package var savesProgressInFlash = true
    /// How init packet signatures are treated.
    package var signature: SignaturePolicy = .open
    /// `NRF_SDH_BLE_GATT_MAX_MTU_SIZE`: 247 in the SDK 15+ example bootloaders.
    package var maximumMTU = 247
    /// `INIT_COMMAND_MAX_SIZE`: largest command object, 256 bytes.
    package var commandObjectMaximumSize = 256
    /// `DATA_OBJECT_MAX_SIZE`: largest data object, one 4 KiB page on nRF52.
    package var dataObjectMaximumSize = 4096
    /// `BOOTLOADER_SIZE`: the largest `bl_size` accepted (else 0x04).
    ///
    /// 24 KiB is a simulator choice.
    package var bootloaderRegionSize = 0x6000
    /// Bytes free for a received image (`nrf_dfu_cache_prepare`); larger images get 0x04.
    ///
    /// A simulator choice.
    package var updateCapacity = 0x6_0000
    /// PKT buffers (`MAX_DFU_BUFFERS`); a write arriving when all are waiting for flash is lost.
    ///
    /// `nil` uses the
    /// SDK formula `page size / (maximumMTU - 3) + 1` (17 for MTU 247).
    package var packetBufferCount: Int?
    /// Whether data writes whose length is not a multiple of 4 are dropped (fstorage refuses them in SDK 15+;
    /// the request handler then leaves offset and CRC unchanged and sends nothing).
    package var dropsMisalignedWrites = true
    /// Whether the Create data response waits until the erase has finished.
    ///
    /// The SDK 15–17 request handler
    /// queues the erase and answers at once (`false`); `true` models a bootloader that answers after erasing.
    package var createWaitsForErase = false
    /// Inactivity timeout after which the bootloader resets (`NRF_BL_DFU_INACTIVITY_TIMEOUT_MS`, 120 s).
    package var inactivityTimeout: Duration = .seconds(120)

    /// Creates the default options.
    package init() {}

    var effectivePacketBufferCount: Int {
        packetBufferCount ?? (dataObjectMaximumSize / max(1, maximumMTU - 3) + 1)
    }
}

/// How the simulated Secure DFU bootloader treats init packet signatures.
///
/// A key without a verifier cannot be expressed, so that configuration error cannot happen.
package enum SignaturePolicy: Sendable {
    /// No public key: signatures are neither required nor checked (signed packets are accepted as if unsigned).
    case open
    /// A public key with the verifier that checks against it.
    ///
    /// Signatures are required for SoftDevice and bootloader updates, and for applications when
    /// `requiresSignedApplication` (`NRF_DFU_REQUIRE_SIGNED_APP_UPDATE`, 1 in the SDK examples).
    case verified(publicKey: [UInt8], verifier: any SignatureVerifier, requiresSignedApplication: Bool)
}

/// Checks an ECDSA P-256 / SHA-256 init packet signature; the seam where a crypto module plugs in.
///
/// The simulator itself does no elliptic-curve arithmetic. It hands the verifier exactly what
/// `nrf_dfu_validation.c` verifies:
/// - `message`: the serialized `InitCommand` bytes (inside `Command.init`, without tag and length);
/// - `signature`: 64 bytes as on the wire, r then s, each 32 bytes little-endian (byte-reversed);
/// - `publicKey`: the configured key, X then Y, each 32 bytes little-endian (as `dfu_public_key.c`'s `pk`).
package protocol SignatureVerifier: Sendable {
    /// Returns whether `signature` over `message` verifies with `publicKey`.
    ///
    /// - Parameters:
    ///   - signature: r ‖ s, each little-endian.
    ///   - message: The serialized InitCommand; the verifier hashes it with SHA-256.
    ///   - publicKey: X ‖ Y, each little-endian.
    /// - Returns: `true` when the signature is valid.
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool
}

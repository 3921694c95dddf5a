/// How an ``SMPDevice`` waits for its device: `nrfloader image|reset|echo`'s `--timeout`.
public struct ManagementOptions: Sendable {
    /// How long every wait may take: a connection attempt, each answer, an erase, and the link's drop after a reset;
    /// `nil` for the defaults.
    ///
    /// The defaults are 15 s to connect (the port appearing, or a BLE connection), 5 s for an answer (Zephyr answers
    /// echo, reset and the image state commands within milliseconds; 5 s leaves room for a 4 s BLE connection
    /// interval), 30 s for an erase (Zephyr erases the slot before answering: an nRF52840's 1 MiB slot takes up to
    /// 22 s) and 5 s after a reset for the link to drop. Over Bluetooth LE it also bounds each BlueZ call and, unless
    /// `BluetoothOptions/searchTimeout` is set, the search for a device by name.
    public var timeout: Duration?

    /// The default waits.
    public init() {}
}

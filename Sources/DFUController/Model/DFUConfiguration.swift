/// The policy of an update: intervals, delays, retries and timeouts (style §22).
///
/// Every default names its source.
package struct DFUConfiguration: Sendable, Equatable {
    /// Secure DFU packet receipt notification interval in packets; 0 disables notifications.
    ///
    /// Default 12: the iOS and Android libraries' default, and the cure for repeated CRC errors reported in
    /// IOS-DFU-Library#212. A notification costs one round trip per 12 packets; 0 is fastest on good links
    /// (nrfutil's default).
    package var packetReceiptNotificationInterval: UInt16 = 12

    /// Legacy DFU packet receipt notification interval in packets; 0 disables notifications.
    ///
    /// Default 10: nrfutil 0.5's BLE value, and the cap Android applies because old legacy bootloaders flash too
    /// slowly for faster senders (dfu-protocols.md §1.8).
    package var legacyPacketReceiptNotificationInterval: UInt16 = 10

    /// The largest ATT MTU the controller uses, even if the link negotiated more.
    ///
    /// Default 247: the maximum of the SDK 15+ example bootloaders, and nrfutil's own value (§2.9). Lower it to 23
    /// for links that stall with long writes (pc-nrfutil#147).
    package var maximumMTU: Int = 247

    /// Legacy DFU Packet write size in bytes.
    ///
    /// Default 20: `MAX_DFU_PKT_LEN` of every legacy bootloader; longer writes are dropped silently
    /// (Android-DFU-Library#526). Must be a multiple of 4 (§1.9).
    package var legacyPacketSize: Int = 20

    /// The pause after Create (data object) before the first data packet of an object.
    ///
    /// Default 400 ms: iOS's default; SDK 15–17 bootloaders still erase flash when they answer Create, and
    /// packets sent meanwhile are lost (dfu-protocols.md §2.11, Android-DFU-Library#208).
    package var objectPreparationDelay: Duration = .milliseconds(400)

    /// Which data objects wait ``objectPreparationDelay``.
    ///
    /// Default ``PreparationScope/automatic``: every object when packets are shorter than 244 bytes, none with
    /// full-size packets until the target has lost bytes on this connection. SDK 15–17 bootloaders answer Create
    /// before the page erase ends and park incoming packets in a pool of `MAX_DFU_BUFFERS = CODE_PAGE_SIZE /
    /// MAX_DFU_PKT_LEN + 1` buffers (17 of 244 bytes with MTU 247, `nrf_dfu_ble.c`) until flash is free; packets
    /// beyond the pool are dropped. Full-size packets fit a whole 4 KiB object (17 × 244 = 4148 bytes) into the
    /// pool, so no object needs the pause (iOS pauses before the first one; waiting before every object halves
    /// throughput, Android-nRF-Connect#133). Shorter packets (MTU 23 links) overflow the pool during every erase,
    /// which the simulated bootloader reproduces, so every object waits. An object sent again after lost bytes waits
    /// too, and a bootloader that loses bytes twice on one connection (an older SDK whose buffering was not
    /// checked) gets the pause for every object after that.
    package var objectPreparationScope: PreparationScope = .automatic

    /// How many times one object (command or data) is sent before a CRC mismatch is an error.
    ///
    /// Default 3: the Nordic iOS and Android libraries' attempt limit (dfu-protocols.md §2.8).
    package var attemptsPerObject: Int = 3

    /// Whether to continue from what the target already holds (Select answers) instead of starting over.
    ///
    /// Default on, as iOS and Android; `--no-resume` turns it off (Android-DFU-Library#71). Legacy DFU cannot
    /// resume and always restarts a part (Android-DFU-Library#51).
    package var isResumeEnabled: Bool = true

    /// The name the bootloader should advertise after an unbonded buttonless jump.
    ///
    /// Sent with Set Advertisement Name before Enter Bootloader; `nil` skips the request. 1–20 bytes of UTF-8
    /// (SDK 15 `ble_dfu_unbonded.c`). Default `nil`: the adapter already knows the bootloader's address; a name
    /// helps only when several devices are in DFU mode at once (IOS-DFU-Library#157).
    package var bootloaderName: String?

    /// How long to wait for a Control Point response or packet receipt notification.
    ///
    /// Default 20 s: nrfutil's BLE response timeout (§2.11). Runs of packets get more, see ``minimumThroughput``.
    package var responseTimeout: Duration = .seconds(20)

    /// How long to wait for the legacy Start DFU response, which comes after the target erased flash.
    ///
    /// Default 30 s: a SoftDevice erase takes seconds; nrfutil 0.5 waited 10 s and failed on large images, and
    /// dfu-protocols.md §1.6 calls ≥ 30 s safe.
    package var legacyStartTimeout: Duration = .seconds(30)

    /// The slowest payload rate, in bytes per second, a run of packets is allowed before its response is late.
    ///
    /// A run of `n` bytes gets ``responseTimeout`` plus `n / minimumThroughput` seconds, because the adapter
    /// writes the run before the target can answer. Default 500 B/s: below the slowest rates users report for
    /// working transfers (0.7–0.8 KB/s, dfu-protocols.md §6).
    package var minimumThroughput: Int = 500

    /// The longest one packet write may take on a working link, for the wait on a packet receipt notification.
    ///
    /// A run of N packets that ends in a receipt notification gets N × this plus ``receiptMargin`` before the
    /// controller asks the target where it stands (Calculate Checksum; legacy: Report Received Image Size), instead
    /// of ``responseTimeout``: a lost packet or notification then costs about a second, not 20 (issue 11). Default
    /// 50 ms: BlueZ's longest default LE connection interval (`le_max_conn_interval` 40 × 1.25 ms), at least one
    /// packet per connection event. A late notification only costs a checksum round trip.
    package var packetWriteAllowance: Duration = .milliseconds(50)

    /// What a packet receipt notification may lag behind the run's last packet: the target's flash write and the
    /// notification's connection event.
    ///
    /// Default 1 s: above an SDK 15 page erase (85 ms) that the first packets of an object wait for, and the
    /// 4 s supervision timeout is not at stake, since a late receipt only triggers a checksum request.
    package var receiptMargin: Duration = .seconds(1)

    /// How long to wait for connection and service discovery.
    ///
    /// Default 15 s: iOS tries the same peripheral for 15 s after a part before scanning (§2.11); a bootloader
    /// after a SoftDevice update waits only 10 s for the next part, so longer would not help.
    package var connectionTimeout: Duration = .seconds(15)

    /// How long to wait for the target to drop the link after a jump to the bootloader or an activation.
    ///
    /// Default 5 s: the bootloader's supervision timeout is 4 s (SDK 11 and 15 connection parameters, §1.12); the
    /// application's may be longer, so after this the controller disconnects itself.
    package var disconnectionTimeout: Duration = .seconds(5)

    /// How many times in a row the controller reconnects (after link loss, a response that never came, or a
    /// legacy restart) before it is an error.
    ///
    /// Default 3: bounded, as users.md §5 asks ("no unbounded retry loops"); each reconnect of Secure DFU resumes.
    /// The count starts again once a connection got a data object executed past the furthest offset any earlier
    /// connection of the part reached (a target whose Execute never takes effect gains nothing), so a long update
    /// survives several separate faults while a device that fails the same way every time is given up on.
    /// `--retries` sets it.
    package var maximumReconnects: Int = 3

    /// Creates the default policy.
    package init() {}

    /// Which data objects wait for the object preparation delay.
    package enum PreparationScope: Sendable, Equatable {
        /// Only the first data object created in each connection.
        case firstObjectOfConnection
        /// Every data object.
        case everyObject
        /// Every object with packets shorter than 244 bytes; with full-size packets only an object sent again
        /// after lost bytes, and every object once the target lost bytes twice on the connection.
        case automatic

        /// Whether the object numbered `objectsCreated` (1-based, per connection) waits, for packets of
        /// `packetSize` bytes, `afterLoss` telling whether lost bytes call for the pause (a resent object, or a
        /// target that lost bytes repeatedly).
        func applies(toObject objectsCreated: Int, packetSize: Int, afterLoss: Bool) -> Bool {
            switch self {
            case .firstObjectOfConnection: objectsCreated == 1
            case .everyObject: true
            case .automatic: afterLoss || packetSize < Self.fullPacketSize
            }
        }

        /// MTU 247 − 3: the packet size the SDK's buffer pool is sized for.
        static let fullPacketSize = 244
    }
}

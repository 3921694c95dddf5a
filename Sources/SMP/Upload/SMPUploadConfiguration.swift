/// What to ask the device to do with the image once it is uploaded (`--smp-mode`).
package enum SMPConfirmMode: String, Sendable, Equatable, CaseIterable {
    /// Mark the image for test, reset, reconnect, read the state, and confirm it once it runs: MCUboot reverts an
    /// image that never comes up far enough to be confirmed. The default.
    case testAndConfirm = "test-and-confirm"
    /// Confirm the uploaded image (a permanent swap), reset, and check it runs.
    case confirm
    /// Mark the image for test, reset, and check it runs unconfirmed (it reverts on the next reset unless the
    /// application confirms itself).
    case test
    /// Upload and check the device holds the image; no state change, no reset.
    case uploadOnly = "upload-only"
}

/// The SMP upload's policy, with the evidence behind each default.
package struct SMPUploadConfiguration: Sendable, Equatable {
    /// What to do after the upload.
    package var mode: SMPConfirmMode = .testAndConfirm
    /// The SMP version to ask in; v2 gets group errors (`err {group, rc}`) with names, and a v1-only device answers
    /// a v2 request as v1 (Zephyr `smp.c`).
    package var version: SMPVersion = .v2
    /// The image number (0: the application; 1 for a network core image on nRF53) for the single-image
    /// ``SMPUploader/init(image:imageHash:fileSHA256:configuration:)``; with several images each
    /// ``SMPImageUpload`` names its own.
    package var image: Int = 0
    /// How long to wait for each answer: the DFU engine's default (`--timeout`, 20 s), which covers Zephyr erasing
    /// the whole secondary slot while answering the first chunk (`img_mgmt_erase_image_data`).
    package var responseTimeout: Duration = .seconds(20)
    /// How long one connection attempt may take, device search included.
    package var connectionTimeout: Duration = .seconds(15)
    /// How long to wait for the link to drop after the device answered a reset (Zephyr resets
    /// `CONFIG_MCUMGR_GRP_OS_RESET_MS`, 250 ms by default, after answering); then nrfloader disconnects itself.
    package var resetDisconnectTimeout: Duration = .seconds(5)
    /// Link losses in a row, without progress in between, before the update fails.
    package var maximumReconnects: Int = 3
    /// How many times an upload request whose answer never came is sent again before the update fails (`--retries`).
    ///
    /// The count is of re-sends in a row with the device at the same offset. Each send waits ``responseTimeout``, so the update gives up after
    /// (1 + this) × ``responseTimeout`` without progress. Zephyr drops a request it cannot take without a word (no
    /// buffer free, a line or packet too long), so sending it again unchanged can go on for ever: 3 is what
    /// nrfloader's DFU engine allows per object.
    package var maximumResends: Int = 3
    /// How requests reach the device, which decides what is done about a lost answer.
    package var link: SMPLink = .packets
    /// The most requests in flight; `nil` takes the device's `buf_count` − 1 (Zephyr's SMP buffers hold requests and
    /// responses alike: `CONFIG_MCUMGR_BUF_COUNT` help text), 1 disables pipelining.
    package var maximumRequestsInFlight: Int?
    /// What to assume when the device does not answer MCUmgr parameters (`CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS` is
    /// off by default, giving rc 8): Zephyr's defaults `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` 384 and
    /// `_COUNT` 4.
    package var defaultParameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4)

    /// Creates the default configuration.
    package init() {}
}

/// How requests reach the device, as far as the upload's policy for lost answers cares.
package enum SMPLink: Sendable, Equatable {
    /// Whole frames, reassembled by the device from the header's length: BLE (`smp_bt.c`) and the in-process simulator.
    /// A lost answer is sent again unchanged.
    case packets
    /// Console lines on a byte stream (Zephyr's UART transport `uart_mcumgr.c` and shell transport `smp_shell.c`):
    /// each line needs one of the device's RX line buffers until the SMP thread has decoded it, and a line that finds
    /// none is dropped without a word. After a lost answer to an upload request, requests shrink to what
    /// `linesAfterLoss` lines carry (``SMPSerialFraming/largestFrame(lines:maximumLineLength:)``), one at a time, for
    /// the rest of the session; `nil` keeps them as they are.
    ///
    /// 2 lines is what every Zephyr console transport takes with its defaults: `CONFIG_UART_MCUMGR_RX_BUF_COUNT` and
    /// `CONFIG_MCUMGR_TRANSPORT_SHELL_RX_BUF_COUNT` are both 2 (smpclient's `--line-buffers` default is 2 as well).
    /// Zephyr's own smp_svr sample with the shell transport drops the rest of a 5-line request
    /// (`Tests/ThirdParty/zephyr-smp-svr/README.md`, finding 2).
    case console(linesAfterLoss: Int?)

    /// The serial console with Zephyr's default 2 RX line buffers.
    package static let serialConsole = SMPLink.console(linesAfterLoss: 2)
}

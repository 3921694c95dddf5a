package import SMP
import SMPTargetAdapter

/// An MCUboot device's management commands over SMP (MCUmgr): its image slots, reset and echo, as
/// `nrfloader image list|test|confirm|erase`, `reset` and `echo` send them.
///
/// Make one from an ``UpdateTarget`` whose transport carries SMP: a Bluetooth LE device (product `NRFLoaderBlueZ`), a
/// serial port with Zephyr's MCUmgr UART transport or MCUboot's serial recovery (`NRFLoaderSerial`), or the simulated
/// `.smp` device (`NRFLoaderSimulator`). Each command connects, sends one request, waits for its answer and drops the
/// link; nothing stays open between commands. Send one command at a time to a device.
///
/// A request whose answer is lost (no answer in time, or the link dropped before it) is sent again after a
/// reconnection, up to 3 times in all; ``ManagementReply/attempts`` says how many went out. A state change (test,
/// confirm, erase) is checked with a fresh state read: a device that accepts it but does not apply it fails with
/// ``ExitStatus/protocolError``.
///
/// Every command throws ``UpdateError``:
/// - ``ExitStatus/protocolError`` (76) when the device refused the request (``UpdateError/smpErrorCode`` says with
///   which code), broke the protocol, or did not apply a state change;
/// - ``ExitStatus/temporaryFailure`` (75) when the link was lost or a wait timed out after the device was reached;
/// - ``ExitStatus/unavailable`` (69) when the device was never reached (no adapter, a busy port, no such device);
/// - ``ExitStatus/noInput`` (66) for a serial port that does not exist;
/// - ``ExitStatus/usage`` (64) for a target that does not carry SMP;
/// - ``ExitStatus/interrupted`` (130) when the calling task was cancelled.
public struct SMPDevice: Sendable {
    /// The device.
    public let target: UpdateTarget
    /// How long to wait for it.
    public let options: ManagementOptions
    private let onLog: @Sendable (String) -> Void
    /// The receiver of lines of detail, for the file transfers (`SMPDevice+Files.swift`).
    var logger: @Sendable (String) -> Void { onLog }

    /// The device that `target` reaches.
    ///
    /// - Parameters:
    ///   - target: The device, as an update reaches it.
    ///   - options: The waits.
    ///   - onLog: Receives lines of detail, as `--verbose` prints them: reconnections, lost answers, a serial
    ///     console's log lines. They may hold the device's own text: escape them before printing on a terminal.
    public init(
        _ target: UpdateTarget, options: ManagementOptions = ManagementOptions(),
        onLog: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.target = target
        self.options = options
        self.onLog = onLog
    }

    /// Reads every image slot (image group, state read).
    ///
    /// - Returns: The slots.
    /// - Throws: ``UpdateError``.
    public func imageState() async throws(UpdateError) -> ManagementReply<ImageState> {
        let result = try await run(.readImageState)
        guard case .imageState(let state) = result.reply else { preconditionFailure("\(result.reply) for a read") }
        return ManagementReply(ImageState(state), attempts: result.attempts)
    }

    /// Marks the image with this hash to be tested: MCUboot boots it on the next reset, and reverts to the current
    /// image on the reset after unless it is confirmed.
    ///
    /// - Parameter hash: The image's SHA-256 hash, 32 bytes (``ImageSlot/hash``).
    /// - Returns: The image state a fresh read shows after the change: the image pending.
    /// - Throws: ``UpdateError``; a device that knows no such image refuses with `IMG_MGMT_ERR_HASH_NOT_FOUND`, and
    ///   one with a swap pending already with `IMG_MGMT_ERR_IMAGE_ALREADY_PENDING`.
    public func testImage(hash: [UInt8]) async throws(UpdateError) -> ManagementReply<ImageState> {
        try await writeState(.testImage(hash: hash))
    }

    /// Confirms the running image, so that MCUboot keeps it; or, with a hash, makes that image permanent from the next
    /// reset on.
    ///
    /// - Parameter hash: The image's SHA-256 hash, 32 bytes, or `nil` for the running image.
    /// - Returns: The image state a fresh read shows after the change.
    /// - Throws: ``UpdateError``.
    public func confirmImage(hash: [UInt8]? = nil) async throws(UpdateError) -> ManagementReply<ImageState> {
        try await writeState(.confirmImage(hash: hash))
    }

    /// Erases an image slot, checked with a fresh state read.
    ///
    /// - Parameter slot: The slot (image 0: 0 and 1, image 1: 2 and 3, …), or `nil` for the one the device picks:
    ///   image 0's secondary slot, 1.
    /// - Returns: Nothing but the attempts.
    /// - Throws: ``UpdateError``; the device refuses the running slot and a pending one.
    public func eraseImage(slot: Int? = nil) async throws(UpdateError) -> ManagementReply<Void> {
        let result = try await run(.eraseImage(slot: slot))
        guard case .erased = result.reply else { preconditionFailure("\(result.reply) for an erase") }
        return ManagementReply((), attempts: result.attempts)
    }

    /// Resets the device (OS group) and waits for its link to drop, as a reset drops it.
    ///
    /// Over a serial port the reset shows as the console's boot banner, or the USB port vanishing.
    ///
    /// - Returns: Whether the device's answer came before the link dropped.
    /// - Throws: ``UpdateError``; ``ExitStatus/temporaryFailure`` when the device answers but the link never drops.
    public func reset() async throws(UpdateError) -> ManagementReply<ResetOutcome> {
        let result = try await run(.reset)
        guard case .reset(let answered) = result.reply else { preconditionFailure("\(result.reply) for a reset") }
        return ManagementReply(answered ? .answered : .linkDroppedFirst, attempts: result.attempts)
    }

    /// Sends `text` to the device (OS group, echo) and returns what it echoed.
    ///
    /// - Parameter text: The text.
    /// - Returns: The device's echo: its own text, to escape before printing on a terminal.
    /// - Throws: ``UpdateError``; a device built without `CONFIG_MCUMGR_GRP_OS_ECHO` refuses with `MGMT_ERR_ENOTSUP`.
    public func echo(_ text: String) async throws(UpdateError) -> ManagementReply<String> {
        let result = try await run(.echo(text))
        guard case .echoed(let echoed) = result.reply else { preconditionFailure("\(result.reply) for an echo") }
        return ManagementReply(echoed, attempts: result.attempts)
    }

    private func writeState(_ request: SMPManagementRequest) async throws(UpdateError) -> ManagementReply<ImageState> {
        let result = try await run(request)
        guard case .stateWritten(let state) = result.reply else {
            preconditionFailure("\(result.reply) for \(request)")
        }
        return ManagementReply(ImageState(state), attempts: result.attempts)
    }

    /// Sends one management request and waits for its answer: the one path every command takes.
    ///
    /// A new command (of another group of Zephyr's MCUmgr: OS parameters, file system, shell, statistics, settings)
    /// is a case of `SMPManagementRequest` and one public method here that reads its reply.
    ///
    /// - Parameter request: The request.
    /// - Returns: The device's reply, read.
    /// - Throws: ``UpdateError``.
    package func run(_ request: SMPManagementRequest) async throws(UpdateError) -> SMPExchangeResult {
        guard let open = target.openManagementLink else {
            throw UpdateError(
                OptionError(message: "\(target) takes no SMP management requests (it is not an SMP device)"),
                status: .usage)
        }
        var configuration = SMPExchangeConfiguration()
        if let timeout = options.timeout { configuration = configuration.waiting(timeout) }
        // A request that must not run twice (a shell command, an erase) is sent once.
        if !request.isRepeatable { configuration.maximumAttempts = 1 }
        let exchange = SMPExchange(request: request, configuration: configuration)
        let transport: any SMPTransport
        do {
            transport = try await open(options)
        } catch {
            // Cancelled while the device was being found: the interrupt is the reason, not what it broke.
            if Task.isCancelled { throw UpdateError(UpdateFailure(.smpCommand(.cancelled), deviceWasReached: false)) }
            throw error
        }
        return try await Self.run(exchange, over: transport, onLog: onLog)
    }

    private static func run<Transport: SMPTransport>(
        _ exchange: SMPExchange, over transport: Transport, onLog: @Sendable (String) -> Void
    ) async throws(UpdateError) -> SMPExchangeResult {
        switch await SMPExchangeAdapter(transport: transport, exchange: exchange).run(onLog: onLog) {
        case .completed(let result): return result
        case .failed(let error, let reached):
            throw UpdateError(UpdateFailure(.smpCommand(error), deviceWasReached: reached))
        }
    }
}

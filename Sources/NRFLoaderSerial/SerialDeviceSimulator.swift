import DFUSimulator
public import NRFLoaderKit
public import NRFLoaderSimulator
import SMPSimulator
import SerialSimulator
import Synchronization

/// Serves a simulated device on a pseudo-terminal, as `nrfloader simulate-serial` does: an nRF5 SDK 15 serial
/// Secure DFU bootloader (`SimulatedDeviceKind.secure`), an SDK 11 or Adafruit legacy serial bootloader
/// (`SimulatedDeviceKind.legacy`), or a Zephyr application on MCUboot behind the SMP console transport
/// (`SimulatedDeviceKind.smp`).
///
/// Any uploader (`UpdateTarget.serial(_:options:)`, nrfutil, mcumgr) opens ``portPath``, a symlink to the
/// pseudo-terminal, as it would open `/dev/ttyACM0`. ``run(stoppingAfterActivations:onReady:)`` serves until the
/// task is cancelled or the device has activated enough images, then removes the symlink and returns what happened.
public struct SerialDeviceSimulator: Sendable {
    /// The device served.
    public var device: SimulatedDeviceProfile
    /// The symlink made to the pseudo-terminal, such as `/tmp/ttyDFU` (an older symlink there is replaced).
    public var portPath: String
    /// Secure: the Get MTU answer (the SLIP buffer size), 11 to 491; 131 as the SDK's UART transport.
    public var mtu = 131
    /// Read no faster than this line rate, at least 100 baud, 10 bits a byte, as a UART would deliver; `nil` reads
    /// as fast as the host writes.
    public var paceBaudRate: Int?
    /// How the line misbehaves (nRF5 kinds).
    public var lineFaults = LineFaults()
    /// SMP: the RX line buffers of Zephyr's console transport, 1 to 64; `nil` decodes each line as it arrives.
    ///
    /// Zephyr has 2 (`CONFIG_UART_MCUMGR_RX_BUF_COUNT`): an SMP line that arrives while that many lines wait to be
    /// decoded is dropped, and lines are decoded once the input has been quiet for 20 ms.
    public var smpLineBuffers: Int?
    /// The device as a USB device in a sysfs tree, `nil` for none.
    public var usb: USBDevice?
    /// Whether the port disappears and comes back after every activation, as a USB CDC bootloader's does.
    public var reenumeration: Reenumeration?

    /// A simulator of `device` at `portPath`, without faults, USB description or re-enumeration.
    ///
    /// - Parameters:
    ///   - device: The device: `SimulatedDeviceKind.secure`, `SimulatedDeviceKind.legacy` or
    ///     `SimulatedDeviceKind.smp`.
    ///   - portPath: The symlink to make to the pseudo-terminal.
    public init(serving device: SimulatedDeviceProfile, at portPath: String) {
        self.device = device
        self.portPath = portPath
    }

    /// Serves the device until the task is cancelled or it has activated `limit` images.
    ///
    /// Cancelling the task stops the device cleanly: the symlink and the USB entry are removed, and the report
    /// returned.
    ///
    /// - Parameters:
    ///   - limit: Stop after this many activations (at least 1), `nil` to serve until cancelled.
    ///   - onReady: Called once the port exists, with the pseudo-terminal's own path (`/dev/pts/N`).
    /// - Returns: What the device did.
    /// - Throws: `UpdateError` with `ExitStatus/usage` for an option the device does not take; the error reading
    ///   the signature key; `ExitStatus/software` when the pseudo-terminal cannot be made.
    public func run(stoppingAfterActivations limit: Int? = nil, onReady: (_ devicePath: String) -> Void = { _ in })
        async throws(UpdateError) -> Report
    {
        try validate(limit: limit)
        switch device.kind {
        case .secure:
            let bootloader = SerialBootloader(
                device: SimulatedDevice(configuration: try device.dfuConfiguration()), mtu: mtu,
                faults: lineFaults.secure)
            let usb = usb?.simulated(vendorID: 0x1915, productID: 0x521F, product: "Open DFU Bootloader (simulated)")
            return try await serve(bootloader, usb: usb, limit: limit, onReady: onReady) {
                SimulatedTarget.images(of: $0.device)
            }
        case .legacy:
            let bootloader = LegacySerialBootloader(
                device: SimulatedDevice(configuration: try device.dfuConfiguration()), faults: lineFaults.legacy)
            let usb = usb?.simulated(vendorID: 0x239A, productID: 0x0029, product: "nRF52 Bootloader (simulated)")
            return try await serve(bootloader, usb: usb, limit: limit, onReady: onReady) {
                SimulatedTarget.images(of: $0.device)
            }
        case .smp:
            // MCUboot's serial recovery decodes a packet (length field, frame, CRC) into its 1024-byte buffer
            // (MCUBOOT_SERIAL_MAX_RECEIVE_SIZE); Zephyr's console transport into CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE.
            let console = SMPConsoleDevice(
                device: device.smpDevice(), bufferSize: device.smpSerialRecovery ? 1024 : 384,
                lineBuffers: smpLineBuffers)
            // Zephyr's USB vendor id and its CDC ACM sample's product id.
            let usb = usb?.simulated(vendorID: 0x2FE3, productID: 0x0001, product: "Zephyr CDC ACM (simulated)")
            return try await serve(console, usb: usb, limit: limit, onReady: onReady) {
                SimulatedTarget.images(of: $0.device)
            }
        case .buttonless, .legacyV1:
            preconditionFailure("validate(limit:) refuses the \(device.kind.rawValue) device")
        }
    }

    private func validate(limit: Int?) throws(UpdateError) {
        func refuse(_ message: String) -> UpdateError { UpdateError(OptionError(message: message), status: .usage) }
        switch device.kind {
        case .secure, .legacy, .smp: break
        case .buttonless, .legacyV1:
            throw refuse("a serial device is secure, legacy or smp, not \(device.kind.rawValue)")
        }
        try device.validate()
        guard (11...491).contains(mtu) else { throw refuse("a serial bootloader's MTU is 11 to 491, not \(mtu)") }
        if let limit, limit < 1 { throw refuse("a simulator stops after at least 1 activation") }
        if let paceBaudRate, paceBaudRate < 100 { throw refuse("a paced line runs at 100 baud or more") }
        if let smpLineBuffers, !(1...64).contains(smpLineBuffers) {
            throw refuse("an SMP console has 1 to 64 line buffers")
        }
        if let reenumeration, reenumeration.delay < .zero {
            throw refuse("a re-enumeration delay is 0 or more")
        }
        if device.kind == .smp, lineFaults != LineFaults() { throw refuse("line faults do not apply to an SMP device") }
    }

    /// Serves `model` on a thread of its own (its loop blocks in `poll`, never on the Swift cooperative pool).
    private func serve<Model: SerialLineModel>(
        _ model: Model, usb: SimulatedUSBDevice?, limit: Int?, onReady: (String) -> Void,
        images: (Model) -> [SimulatedTarget.Image]
    ) async throws(UpdateError) -> Report {
        let terminal: PseudoTerminalBootloader<Model>
        do {
            terminal = try PseudoTerminalBootloader(
                bootloader: model, linkPath: portPath, paceBaudRate: paceBaudRate, usb: usb,
                reenumeration: reenumeration?.simulated)
        } catch {
            throw UpdateError(error, status: .software)
        }
        onReady(terminal.slavePath)
        let stop = Mutex(false)
        let served = ServedTerminal(terminal)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, UpdateError>, Never>) in
                startServingThread {
                    let outcome = Result { () throws(UpdateError) -> Bool in
                        do {
                            return try served.terminal.run { state in
                                stop.withLock { $0 } || limit.map { state.activations >= $0 } ?? false
                            }
                        } catch {
                            throw UpdateError(error, status: .software)
                        }
                    }
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            stop.withLock { $0 = true }
        }
        let vanished = try outcome.get()
        let state = terminal.state
        return Report(
            activations: state.activations, portVanished: vanished, transcript: state.transcript,
            hostWireBytes: state.hostBytes,
            firstByteToLastActivation: state.firstFrameTime.flatMap { first in
                state.lastActivationTime.map { $0 - first }
            },
            images: images(state))
    }
}

/// The pseudo-terminal, handed to the serving thread.
///
/// `@unchecked Sendable`: the serving thread alone uses the terminal from its start until it resumes the
/// continuation; the caller reads it only after that, so the two never touch it at once.
private final class ServedTerminal<Model: SerialLineModel>: @unchecked Sendable {
    let terminal: PseudoTerminalBootloader<Model>

    init(_ terminal: PseudoTerminalBootloader<Model>) {
        self.terminal = terminal
    }
}

import ArgumentParser
import BlueZ
import BlueZTransport
import DBus
import DFUController
import DFUSimulator
import DeviceLink
import MCUbootImage
import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator
import SMP
import SMPBlueZ
import SMPSerial
import SMPSimulator
import SMPTargetAdapter

/// The device of an mcumgr-style verb (`image list|test|confirm|erase`, `reset`, `echo`) and how to reach it: one
/// option group that every verb shares.
struct SMPTargetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF) of a device with the SMP service, or 'sim:smp', a "
                + "simulated Zephyr/MCUboot device in this process (a fresh one each run)."))
    var target: String?

    @Option(help: "The device that advertises exactly this name (Bluetooth).")
    var name: String?

    @Option(help: "The Bluetooth adapter, e.g. hci0 (default: the first powered adapter).")
    var adapter: String?

    @Option(
        help: ArgumentHelp(
            "The serial port of a Zephyr application with the MCUmgr UART transport, or of MCUboot's serial "
                + "recovery (/dev/ttyACM0, or 'auto' for the only Nordic/Adafruit port plugged in)."))
    var port: String?

    @Option(help: "Serial line speed (USB CDC ignores it).")
    var baud: Int = 115_200

    @Flag(help: "Use RTS/CTS hardware flow control on the serial port.")
    var flowControl = false

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for the connection, for each answer, and after a reset for the link to drop (default: "
                + "15 to connect, 5 per answer, 30 for an erase, 5 for a reset)."))
    var timeout: Int?

    @Option(help: "sim:smp: inject a fault (repeatable), e.g. drop-notification@1, stall@1.")
    var simFault: [String] = []

    @Flag(name: .shortAndLong, help: "Show the exchange's details (reconnections, console lines) on stderr.")
    var verbose = false

    @OptionGroup var output: OutputOptions

    /// Where the request goes.
    enum Endpoint: Equatable {
        /// `--target sim:smp`.
        case simulated
        /// `--port PATH` (or `auto`).
        case serial(String)
        /// `--target ADDRESS`.
        case bluetoothAddress(String)
        /// `--name NAME`.
        case bluetoothName(String)
    }

    /// The endpoint the options name.
    var endpoint: Endpoint {
        get throws {
            switch (target, name, port) {
            case (nil, nil, let port?): return .serial(port)
            case ("sim:smp", nil, nil): return .simulated
            case (let target?, nil, nil):
                if target == "sim" || target.hasPrefix("sim:") {
                    throw ValidationError("unknown simulated target '\(target)' (SMP commands reach sim:smp)")
                }
                return .bluetoothAddress(target)
            case (nil, let name?, nil): return .bluetoothName(name)
            case (nil, nil, nil): throw ValidationError("give the device with --port PATH or --target sim:smp")
            case (.some, .some, _): throw ValidationError("--target and --name exclude each other")
            case (_, _, .some): throw ValidationError("--port excludes --target and --name")
            }
        }
    }

    func validate() throws {
        let endpoint = try endpoint
        if case .serial = endpoint {
        } else if baud != 115_200 || flowControl {
            throw ValidationError("--baud and --flow-control need --port")
        }
        if baud < 1 { throw ValidationError("--baud must be positive") }
        switch endpoint {
        case .bluetoothAddress(let text):
            guard (try? BluetoothAddress(parsing: text)) != nil else {
                throw ValidationError(
                    "--target '\(text)' is neither sim:smp nor a Bluetooth address (AA:BB:CC:DD:EE:FF)")
            }
        case .bluetoothName: break
        case .simulated, .serial:
            if adapter != nil { throw ValidationError("--adapter needs --target ADDRESS or --name NAME") }
        }
        if let timeout, timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
        if !simFault.isEmpty, endpoint != .simulated { throw ValidationError("--sim-fault needs --target sim:smp") }
        for text in simFault {
            let fault: Fault
            do { fault = try FaultSpecification.parse(text) } catch { throw ValidationError("--sim-fault: \(error)") }
            if let reason = SimulatedSMPTransport.unsupportedReason(fault) {
                throw ValidationError("--sim-fault '\(text)' \(reason)")
            }
        }
    }

    /// The target as results name it: `sim:smp`, the port, the address or the name.
    var label: String { target ?? name ?? port ?? "-" }

    /// The link to the device: the one place a new kind of SMP target is added (async, as finding a Bluetooth
    /// adapter through BlueZ is).
    ///
    /// - Returns: A transport, not yet connected.
    /// - Throws: `ValidationError` (exit 64) for a target these commands cannot reach yet; `ToolError` (66) or
    ///   `SMPExchangeFailure` (69) for a port that is missing, busy or forbidden.
    func transport() async throws -> any SMPTransport {
        switch try endpoint {
        case .simulated:
            let faults = FaultPlan(faults: try simFault.map { try FaultSpecification.parse($0) })
            return SimulatedSMPTransport(device: Self.simulatedDevice(), faults: faults)
        case .serial(let requested):
            var line = SerialPortOptions()
            line.baudRate = baud
            line.flowControl = flowControl
            let options = SerialPorts.smpOptions(path: try SerialPorts.resolve(requested), line)
            // Before anything is sent: a missing port is a missing input (66), a busy or forbidden one unavailable.
            do { try SerialSMPTransport.checkAccess(options) } catch {
                if case .notFound(let path) = error { throw ToolError.inputMissing(path: path) }
                throw SMPExchangeFailure(
                    error: .transport(LinkError(.unavailable, error.description)),
                    deviceWasReached: false)
            }
            return SerialSMPTransport(options: options)
        case .bluetoothAddress, .bluetoothName:
            // SMP through BlueZ, as `upload` reaches a device; `--timeout` bounds each BlueZ call too.
            var options = BlueZGATTTransport.Options()
            if let timeout { options.operationTimeout = .seconds(timeout) }
            let device = try await BluetoothDevices.open(
                target: target, name: name, adapter: adapter, options: options, nameSearch: timeout ?? 15)
            return BlueZSMPTransport(gatt: device.transport, request: ConnectionRequest(address: device.address))
        }
    }

    /// The device `--target sim:smp` starts with: Zephyr on MCUboot running image 0.0.1 in slot 0 (confirmed), slot 1
    /// empty, as `upload --target sim:smp` finds it.
    static func simulatedDevice() -> SimulatedSMPDevice {
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        return SimulatedSMPDevice(configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: running)
    }

    /// Sends `request` to the device and waits for its answer; Ctrl-C interrupts it.
    ///
    /// - Parameter request: The request.
    /// - Returns: The device's reply.
    /// - Throws: ``SMPExchangeFailure`` when the device refused, broke the protocol or could not be reached.
    func exchange(_ request: SMPManagementRequest) async throws -> SMPExchangeResult {
        var configuration = SMPExchangeConfiguration()
        if let timeout { configuration = configuration.waiting(.seconds(timeout)) }
        return try await run(SMPExchange(request: request, configuration: configuration), over: try await transport())
    }

    private func run<Transport: SMPTransport>(_ exchange: SMPExchange, over transport: Transport) async throws
        -> SMPExchangeResult
    {
        let verbose = verbose && !output.quiet
        let task = Task {
            await SMPExchangeAdapter(transport: transport, exchange: exchange).run { line in
                if verbose { Console.note(line.escapedForTerminal) }
            }
        }
        Interrupts.onFirstInterrupt { task.cancel() }
        switch await task.value {
        case .completed(let result): return result
        case .failed(let error, let reached): throw SMPExchangeFailure(error: error, deviceWasReached: reached)
        }
    }
}

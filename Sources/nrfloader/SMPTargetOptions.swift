import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator

/// The device of an mcumgr-style verb (`image list|test|confirm|erase`, `reset`, `echo`) and how to reach it: one
/// option group that every verb shares.
struct SMPTargetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF) of a device with the SMP service, "
                + "udp:HOST[:PORT] or udp:[IPV6]:PORT for Zephyr's MCUmgr UDP transport (port 1337 by default), or "
                + "'sim:smp', a simulated Zephyr/MCUboot device in this process (a fresh one each run)."))
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
        /// `--target udp:HOST[:PORT]`.
        case udp(String)
        /// `--name NAME`.
        case bluetoothName(String)
    }

    /// The endpoint the options name.
    var endpoint: Endpoint {
        get throws {
            switch (target, name, port) {
            case (nil, nil, let port?): return .serial(port)
            case ("sim:smp", nil, nil): return .simulated
            case (let target?, nil, nil) where UDPDeviceAddress.isUDPTarget(target): return .udp(target)
            case (let target?, nil, nil):
                if target == "sim" || target.hasPrefix("sim:") {
                    throw ValidationError("unknown simulated target '\(target)' (SMP commands reach sim:smp)")
                }
                return .bluetoothAddress(target)
            case (nil, let name?, nil): return .bluetoothName(name)
            case (nil, nil, nil):
                throw ValidationError("give the device with --port PATH, --target udp:HOST[:PORT] or --target sim:smp")
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
            guard (try? UpdateTarget.bluetooth(address: text)) != nil else {
                throw ValidationError(
                    "--target '\(text)' is neither sim:smp nor a Bluetooth address (AA:BB:CC:DD:EE:FF)")
            }
        case .bluetoothName: break
        case .udp(let text):
            if adapter != nil { throw ValidationError("--adapter needs --target ADDRESS or --name NAME") }
            do { _ = try UDPDeviceAddress(parsing: text) } catch { throw ValidationError("--target: \(error)") }
        case .simulated, .serial:
            if adapter != nil { throw ValidationError("--adapter needs --target ADDRESS or --name NAME") }
        }
        if let timeout, timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
        if !simFault.isEmpty, endpoint != .simulated { throw ValidationError("--sim-fault needs --target sim:smp") }
        for text in simFault {
            switch SimulatedDeviceKind.smp.faultProblem(text) {
            case .malformed(let message)?: throw ValidationError("--sim-fault: \(message)")
            case .unsupported(let reason)?: throw ValidationError("--sim-fault '\(text)' \(reason)")
            case nil: break
            }
        }
    }

    /// The target as results name it: `sim:smp`, the port, the address or the name.
    var label: String { target ?? name ?? port ?? "-" }

    /// The device the options name: the one place a new kind of SMP target is added.
    ///
    /// - Returns: The device, not yet reached.
    /// - Throws: `UpdateError` (64) for options the target refuses.
    func device() throws -> SMPDevice {
        let target: UpdateTarget
        switch try endpoint {
        case .simulated:
            var simulated = SimulatedDeviceOptions()
            simulated.speed = 0
            simulated.faults = simFault
            target = try .simulated(.smp, options: simulated)
        case .serial(let port):
            var line = SerialPortOptions()
            line.baudRate = baud
            line.flowControl = flowControl
            target = .serial(port, options: line)
        case .bluetoothAddress(let address):
            var bluetooth = BluetoothOptions()
            bluetooth.adapter = adapter
            target = try .bluetooth(address: address, options: bluetooth)
        case .bluetoothName(let name):
            var bluetooth = BluetoothOptions()
            bluetooth.adapter = adapter
            target = .bluetooth(name: name, options: bluetooth)
        case .udp(let text):
            target = .udp(try UDPDeviceAddress(parsing: text))
        }
        var options = ManagementOptions()
        if let timeout { options.timeout = .seconds(timeout) }
        let verbose = verbose && !output.quiet
        return SMPDevice(target, options: options) { line in
            if verbose { Console.note(line.escapedForTerminal) }
        }
    }

    /// Sends one command to the device and waits for its answer; Ctrl-C interrupts it.
    ///
    /// - Parameter command: The command, one method of the device.
    /// - Returns: The device's reply.
    /// - Throws: `UpdateError` when the device refused, broke the protocol or could not be reached.
    func send<Value: Sendable>(
        _ command: @escaping @Sendable (SMPDevice) async throws -> ManagementReply<Value>
    ) async throws -> ManagementReply<Value> {
        let device = try device()
        let task = Task { try await command(device) }
        Interrupts.onFirstInterrupt { task.cancel() }
        return try await task.value
    }
}

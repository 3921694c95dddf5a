import DFUController
import DFUTargetAdapter
import DeviceLink
public import NRFLoaderKit
import SMP
package import SMPSerial
import SMPTargetAdapter
package import SerialDFU
package import SerialLine

#if canImport(Glibc)
    import Glibc
#endif

/// How a serial port is used: `nrfloader upload`'s `--baud`, `--flow-control` and `--touch`.
public struct SerialPortOptions: Sendable {
    /// The line speed (USB CDC bootloaders ignore it).
    public var baudRate = 115_200
    /// Whether RTS/CTS hardware flow control is on (the nRF5 SDK's UART bootloader enables it).
    public var flowControl = false
    /// Before the update, open the port at this speed and close it (1200: Adafruit's bootloader entry).
    public var touchBaudRate: Int?

    /// 115200 baud, no flow control, no touch.
    public init() {}
}

extension UpdateTarget {
    /// A device on a serial port: a UART, or a USB CDC port of a Nordic or Adafruit bootloader, or of a Zephyr
    /// application with MCUmgr's UART transport.
    ///
    /// nRF5 firmware goes over the nRF5 SDK's serial Secure DFU (legacy serial DFU, as Adafruit's bootloader
    /// speaks, for inputs with legacy init packets only or `FirmwareOptions/dfuProtocol` `.legacy`); MCUboot
    /// firmware goes over SMP in Zephyr's console framing.
    ///
    /// The target takes management requests (`SMPDevice`) in the same SMP framing: Zephyr's MCUmgr UART transport,
    /// or MCUboot's serial recovery with its smaller command set. They ignore `SerialPortOptions/touchBaudRate`.
    ///
    /// - Parameters:
    ///   - port: The port's path, such as `/dev/ttyACM0`, or `auto` for the only Nordic or Adafruit USB serial
    ///     port plugged in.
    ///   - options: The line settings.
    /// - Returns: The target; the port is opened when an update runs.
    public static func serial(_ port: String, options: SerialPortOptions = SerialPortOptions()) -> UpdateTarget {
        UpdateTarget(
            description: port, lane: port, openManagementLink: SerialPorts.managementLink(port: port, options: options),
            dfu: { firmware, updateOptions, onEvent throws(UpdateError) in
                try await SerialUpdate(port: port, options: options, update: updateOptions).runDFU(firmware, onEvent)
            },
            smp: { firmware, updateOptions, onEvent throws(UpdateError) in
                try await SerialUpdate(port: port, options: options, update: updateOptions).runSMP(firmware, onEvent)
            })
    }
}

/// `/sys` and `/dev`, or the trees `NRFLOADER_SYSFS` and `NRFLOADER_DEV` name (tests; a container without the
/// host's `/sys`), and the USB serial ports in them.
package enum SerialPorts {
    /// `/sys`, or `NRFLOADER_SYSFS`.
    package static var sysfsRoot: String { getenv("NRFLOADER_SYSFS").map { String(cString: $0) } ?? "/sys" }
    /// `/dev`, or `NRFLOADER_DEV`.
    package static var deviceRoot: String { getenv("NRFLOADER_DEV").map { String(cString: $0) } ?? "/dev" }
    /// The ports of the USB serial devices plugged in.
    package static var lister: USBSerialPorts { USBSerialPorts(sysfsRoot: sysfsRoot, deviceRoot: deviceRoot) }

    /// Transport options for the port at `path`.
    package static func options(path: String, _ serial: SerialPortOptions) -> SerialDFUTransport.Options {
        var options = SerialDFUTransport.Options(path: path)
        options.baudRate = serial.baudRate
        options.hardwareFlowControl = serial.flowControl
        options.sysfsRoot = sysfsRoot
        options.deviceRoot = deviceRoot
        return options
    }

    /// SMP transport options for the port at `path`, with the line settings asked for and the sysfs to find it in.
    package static func smpOptions(path: String, _ serial: SerialPortOptions) -> SerialSMPTransport.Options {
        var options = SerialSMPTransport.Options(path: path)
        options.baudRate = serial.baudRate
        options.hardwareFlowControl = serial.flowControl
        options.sysfsRoot = sysfsRoot
        options.deviceRoot = deviceRoot
        return options
    }

    /// `auto` is the one Nordic or Adafruit USB serial port plugged in; anything else is a path.
    package static func resolve(_ requested: String) throws(UpdateError) -> String {
        guard requested == "auto" else {
            guard access(requested, F_OK) == 0 else { throw UpdateError(FileFailure.inputMissing(path: requested)) }
            return requested
        }
        let candidates = lister.dfuCandidates()
        switch candidates.count {
        case 1: return candidates[0].path
        case 0:
            throw UpdateError(
                UpdateFailure(
                    .dfu(
                        .transport(
                            TransportFailure(
                                operation: .connect, kind: .deviceNotFound,
                                cause: "serial port 'auto': no Nordic or Adafruit USB serial port found (see "
                                    + "SerialScanner)"))),
                    deviceWasReached: false)
            ).mentioning([.automaticSerialPort, .serialPortScan])
        default:
            let paths = candidates.map(\.path).joined(separator: ", ")
            throw UpdateError(
                OptionError(
                    message: "serial port 'auto': \(candidates.count) candidate ports (\(paths)): give one by its path"),
                status: .usage, mentioning: [.automaticSerialPort, .serialPortPath])
        }
    }

    /// How management requests reach the device on `port`: SMP in Zephyr's console framing.
    ///
    /// `auto` is resolved when a request is sent, and the port is checked before anything is: a missing one is a
    /// missing input (66), a busy or forbidden one unavailable (69).
    package static func managementLink(port: String, options: SerialPortOptions) -> UpdateTarget.OpenManagementLink {
        { _ throws(UpdateError) in
            let transport = smpOptions(path: try resolve(port), options)
            do throws(SerialPortError) { try SerialSMPTransport.checkAccess(transport) } catch {
                if case .notFound(let path) = error { throw UpdateError(FileFailure.inputMissing(path: path)) }
                throw UpdateError(
                    UpdateFailure(
                        .smpCommand(.transport(LinkError(.unavailable, error.description))),
                        deviceWasReached: false))
            }
            return SerialSMPTransport(options: transport)
        }
    }

    /// A port that cannot be opened: a missing one is a missing input (66), a busy or forbidden one unavailable (69).
    package static func openFailure(_ error: SerialPortError) -> UpdateError {
        if case .notFound(let path) = error { return UpdateError(FileFailure.inputMissing(path: path)) }
        return UpdateError(
            UpdateFailure(
                .dfu(.transport(TransportFailure(operation: .connect, kind: .unavailable, cause: error.description))),
                deviceWasReached: false))
    }
}

/// One update over a serial port.
struct SerialUpdate {
    var port: String
    var options: SerialPortOptions
    var update: UpdateOptions

    /// The controller addresses targets by Bluetooth address; a serial target has none, and the transport ignores it.
    private static let placeholderAddress = BluetoothAddress((0, 0, 0, 0, 0, 0))

    /// Secure serial DFU, or legacy serial DFU for a legacy-only input or when asked for.
    func runDFU(_ firmware: Firmware, _ onEvent: (UpdateEvent) -> Void) async throws(UpdateError) -> UpdateSummary {
        let dfuFirmware = try UpdateError.wrapping { try firmware.dfuFirmware(defaultProtocol: .secure) }
        let path = try SerialPorts.resolve(port)
        // Legacy serial when asked for, or when the input only has legacy init packets (an Adafruit package).
        if firmware.options.dfuProtocol == .legacy || dfuFirmware.parts(for: .secure) == nil,
            let parts = dfuFirmware.parts(for: .legacy)
        {
            return try await LegacySerialUpdate(path: path, options: options, update: update)
                .run(dfuFirmware, input: firmware.name, parts: parts, onEvent)
        }
        if let rate = options.touchBaudRate {
            do { try SerialDFUTransport.touch(path: path, baudRate: rate) } catch {
                throw SerialPorts.openFailure(error)
            }
        }
        let transportOptions = SerialPorts.options(path: path, options)
        // Before any progress: a missing port is a missing input (66), a busy or forbidden one unavailable (69).
        if options.touchBaudRate == nil {
            do { try SerialDFUTransport.checkAccess(transportOptions) } catch { throw SerialPorts.openFailure(error) }
        }
        let transport = SerialDFUTransport(options: transportOptions)
        var configuration = update.dfuConfiguration
        // The serial transports take each frame in turn (flow control, USB), so no pause after Create; the MTU is
        // the device's; the PRN default is nrfutil's serial one (0); a UART port stays after the reset.
        configuration.maximumMTU = Int(UInt16.max)
        configuration.objectPreparationDelay = .zero
        configuration.disconnectionTimeout = .seconds(1)
        if update.packetReceiptNotificationInterval == nil { configuration.packetReceiptNotificationInterval = 0 }
        configuration.connectionTimeout = .seconds(update.timeoutSeconds ?? 15)
        let baud = options.baudRate
        let flowControl = options.flowControl
        do throws(UpdateError) {
            return try await DFUSession.run(
                dfuFirmware, input: firmware.name, to: Self.placeholderAddress, named: path, over: transport,
                configuration: configuration,
                describeLink: {
                    "link: serial \(transport.currentPath) at \(baud) baud\(flowControl ? " with RTS/CTS" : ""), "
                        + "device mtu \(transport.deviceMTU.map(String.init) ?? "-")"
                }, onEvent: onEvent)
        } catch {
            // A device that never answers the ping may be an Adafruit board outside its bootloader.
            throw error.mentioning([.bootloaderTouch])
        }
    }

    /// SMP (MCUmgr) over Zephyr's console framing, to an application with the MCUmgr UART transport or to MCUboot's
    /// serial recovery; every image of a package in one session.
    func runSMP(_ firmware: Firmware, _ onEvent: (UpdateEvent) -> Void) async throws(UpdateError) -> UpdateSummary {
        let (images, package) = try firmware.mcubootImages(for: port)
        let path = try SerialPorts.resolve(port)
        if options.touchBaudRate != nil {
            throw UpdateError(
                OptionError(
                    message:
                        "SerialPortOptions.touchBaudRate does not apply to an MCUboot image: '\(path)' is spoken to "
                        + "over SMP"),
                status: .usage, mentioning: [.touch])
        }
        let transportOptions = SerialPorts.smpOptions(path: path, options)
        // Before any progress: a missing port is a missing input (66), a busy or forbidden one unavailable (69).
        do { try SerialSMPTransport.checkAccess(transportOptions) } catch { throw SerialPorts.openFailure(error) }
        var configuration = update.smpConfiguration
        // As for serial DFU: the timeout also bounds each connection (the port appearing and the device answering).
        if let timeout = update.timeoutSeconds { configuration.connectionTimeout = .seconds(timeout) }
        // Lines on a console: after a lost answer, requests shrink to what Zephyr's 2 RX line buffers hold.
        configuration.link = .serialConsole
        return try await SMPSession.run(
            images, package: package, named: path, over: SerialSMPTransport(options: transportOptions),
            configuration: configuration,
            onEvent: onEvent)
    }
}

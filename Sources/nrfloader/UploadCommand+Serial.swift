import ArgumentParser
import DFUController
import DFUTargetAdapter
import FoundationEssentials
import SerialDFU

#if canImport(Glibc)
    import Glibc
#endif

extension UploadCommand {
    /// `upload --port PATH|auto`: Secure DFU over the SDK 15+ serial transport (UART or USB CDC).
    func runSerial(_ serial: SerialOptions, port requested: String) async throws {
        // A signed MCUboot image is for a Zephyr/MCUboot device: SMP over the console framing.
        let contents: [UInt8]?
        switch try readInput() {
        case .smp(let update):
            return try await runSMPSerial(serial, path: try Self.resolvePort(requested), input: update)
        case .dfu(let bytes): contents = bytes
        }
        let firmware = try loadInput(defaultProtocol: .secure, contents: contents)
        try initPacketOptions.verifySignatures(of: firmware)
        let path = try Self.resolvePort(requested)
        // Legacy serial when asked for, or when the input only has legacy init packets (an Adafruit package).
        if initPacketOptions.dfu == .legacy || firmware.firmware.parts(for: .secure) == nil,
            let parts = firmware.firmware.parts(for: .legacy)
        {
            return try await runLegacySerial(serial, path: path, firmware: firmware, parts: parts)
        }
        if let rate = serial.touch {
            do { try SerialDFUTransport.touch(path: path, baudRate: rate) } catch {
                throw Self.openFailure(error)
            }
        }
        let options = SerialScan.options(path: path, serial)
        // Before any progress: a missing port is a missing input (66), a busy or forbidden one unavailable (69).
        if serial.touch == nil {
            do { try SerialDFUTransport.checkAccess(options) } catch { throw Self.openFailure(error) }
        }
        let transport = SerialDFUTransport(options: options)
        var configuration = engineOptions.configuration
        // The serial transports take each frame in turn (flow control, USB), so no pause after Create; the MTU is
        // the device's; the PRN default is nrfutil's serial one (0); a UART port stays after the reset.
        configuration.maximumMTU = Int(UInt16.max)
        configuration.objectPreparationDelay = .zero
        configuration.disconnectionTimeout = .seconds(1)
        if engineOptions.prn == nil { configuration.packetReceiptNotificationInterval = 0 }
        configuration.connectionTimeout = .seconds(engineOptions.timeout ?? 15)
        try await upload(
            firmware, to: Self.serialPlaceholderAddress, named: path, over: transport, configuration: configuration
        ) {
            "link: serial \(transport.currentPath) at \(serial.baud) baud\(serial.flowControl ? " with RTS/CTS" : ""), "
                + "device mtu \(transport.deviceMTU.map(String.init) ?? "-")"
        }
    }

    /// The controller addresses targets by Bluetooth address; a serial target has none, and the transport ignores it.
    private static let serialPlaceholderAddress = BluetoothAddress((0, 0, 0, 0, 0, 0))

    /// `auto` is the one Nordic or Adafruit USB serial port plugged in; anything else is a path.
    static func resolvePort(_ requested: String) throws -> String {
        guard requested == "auto" else {
            guard access(requested, F_OK) == 0 else { throw CLIError.inputMissing(path: requested) }
            return requested
        }
        let candidates = SerialScan.lister.dfuCandidates()
        switch candidates.count {
        case 1: return candidates[0].path
        case 0:
            throw UploadFailure(
                error: .transport(
                    TransportFailure(
                        operation: .connect, kind: .deviceNotFound,
                        cause: "--port auto: no Nordic or Adafruit USB serial port found (see nrfloader scan --serial)"
                    )),
                deviceWasReached: false)
        default:
            let paths = candidates.map(\.path).joined(separator: ", ")
            throw ValidationError(
                "--port auto: \(candidates.count) candidate ports (\(paths)): give one with --port PATH")
        }
    }

    static func openFailure(_ error: SerialPortError) -> any Error {
        if case .notFound(let path) = error { return CLIError.inputMissing(path: path) }
        return UploadFailure(
            error: .transport(TransportFailure(operation: .connect, kind: .unavailable, cause: error.description)),
            deviceWasReached: false)
    }
}

import ArgumentParser
import MCUbootImage
import MCUbootPackage
import SMPSerial
import SerialDFU

extension UploadCommand {
    /// `upload --port PATH IMAGE.bin|dfu_application.zip`: SMP (MCUmgr) over Zephyr's console framing, to an
    /// application with the MCUmgr UART transport or to MCUboot's serial recovery; every image of a package in one
    /// session.
    func runSMPSerial(_ serial: SerialOptions, path: String, input: SMPUpdateInput) async throws {
        if serial.touch != nil {
            throw ValidationError("--touch does not apply to an MCUboot image: '\(path)' is spoken to over SMP")
        }
        var options = SerialSMPTransport.Options(path: path)
        options.baudRate = serial.baud
        options.hardwareFlowControl = serial.flowControl
        options.sysfsRoot = SerialScan.sysfsRoot
        options.deviceRoot = SerialScan.deviceRoot
        // Before any progress: a missing port is a missing input (66), a busy or forbidden one unavailable (69).
        do { try SerialSMPTransport.checkAccess(options) } catch { throw Self.openFailure(error) }
        var configuration = smpOptions.configuration(engineOptions)
        // As for serial DFU: --timeout also bounds each connection (the port appearing and the device answering echo).
        if let timeout = engineOptions.timeout { configuration.connectionTimeout = .seconds(timeout) }
        // Lines on a console: after a lost answer, requests shrink to what Zephyr's 2 RX line buffers hold.
        configuration.link = .serialConsole
        try await uploadSMP(
            input, named: path, over: SerialSMPTransport(options: options), configuration: configuration)
    }
}

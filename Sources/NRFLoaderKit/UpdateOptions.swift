package import DFUController
package import SMP

/// How an update behaves: the options `nrfloader upload` takes as `--prn`, `--retries`, `--timeout`,
/// `--no-resume`, `--smp-mode` and `--smp-window`.
///
/// Every wait on the device is bounded by ``timeout``: each response, each connection (a BlueZ search included) and
/// each reconnection.
public struct UpdateOptions: Sendable {
    /// What an SMP update asks of MCUboot once the image is uploaded.
    public enum SMPMode: String, Sendable, CaseIterable {
        /// Mark the image for test, reset, and confirm it once it runs (`test-and-confirm`, the default).
        case testAndConfirm = "test-and-confirm"
        /// Mark the image confirmed at once, and reset.
        case confirm
        /// Mark the image for test and reset; the application must confirm it itself.
        case test
        /// Upload only: no state change, no reset.
        case uploadOnly = "upload-only"
    }

    /// Packets between two packet receipt notifications, 0 for none (default: 12 for Secure DFU, 10 for legacy DFU
    /// over BLE, 0 over serial).
    public var packetReceiptNotificationInterval: Int?
    /// Attempts per object, and reconnections in a row, before the update fails (default 3).
    public var retries: Int?
    /// The longest wait for each response from the device, and for each connection (default 20 s per response).
    public var timeout: Duration?
    /// Whether an interrupted update resumes with what the device already holds (default `true`).
    public var resumes = true
    /// What an SMP update does after the upload.
    public var smpMode = SMPMode.testAndConfirm
    /// SMP requests in flight at most (default: the device's buffer count − 1).
    public var smpWindow: Int?

    /// The defaults: `nrfloader upload` without options.
    public init() {}

    /// ``timeout`` in whole seconds, at least 1, for the waits counted in seconds.
    package var timeoutSeconds: Int? {
        timeout.map { max(1, Int($0.components.seconds)) }
    }

    /// The DFU engine's policy.
    package var dfuConfiguration: DFUConfiguration {
        var configuration = DFUConfiguration()
        if let prn = packetReceiptNotificationInterval {
            configuration.packetReceiptNotificationInterval = UInt16(clamping: prn)
            configuration.legacyPacketReceiptNotificationInterval = UInt16(clamping: prn)
        }
        if let retries {
            configuration.attemptsPerObject = retries
            configuration.maximumReconnects = retries
        }
        if let timeout { configuration.responseTimeout = timeout }
        configuration.isResumeEnabled = resumes
        return configuration
    }

    /// The SMP upload's policy.
    package var smpConfiguration: SMPUploadConfiguration {
        var configuration = SMPUploadConfiguration()
        configuration.mode =
            switch smpMode {
            case .testAndConfirm: .testAndConfirm
            case .confirm: .confirm
            case .test: .test
            case .uploadOnly: .uploadOnly
            }
        configuration.maximumRequestsInFlight = smpWindow
        if let timeout { configuration.responseTimeout = timeout }
        if let retries {
            configuration.maximumReconnects = retries
            configuration.maximumResends = retries
        }
        return configuration
    }

    /// Checks the values, as `nrfloader upload` does before it starts.
    package func validate() throws(UpdateError) {
        func usage(_ message: String) -> UpdateError {
            UpdateError(OptionError(message: message), status: .usage)
        }
        if let retries, retries < 1 { throw usage("retries must be at least 1") }
        if let timeout, timeout < .seconds(1) { throw usage("timeout must be at least 1 second") }
        if let smpWindow, smpWindow < 1 { throw usage("the SMP window must be at least 1") }
        if let prn = packetReceiptNotificationInterval, !(0...0xFFFF).contains(prn) {
            throw usage("the packet receipt notification interval must be 0 to 65535")
        }
    }
}

/// An option value the library refuses.
package struct OptionError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}

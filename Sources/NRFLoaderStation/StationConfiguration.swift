public import NRFLoaderKit
public import NRFLoaderSimulator

/// How a ``Station`` listens, whom it serves, and which devices it offers: `nrfloader serve`'s options.
public struct StationConfiguration: Sendable {
    /// The address to listen on, an IPv4 or IPv6 address or `localhost` (default `127.0.0.1`).
    public var host = "127.0.0.1"
    /// The TCP port (default 8080); 0 picks a free one, which ``Station/run(onListening:)`` reports.
    public var port = 8080
    /// The secret every request must carry (a bearer token, the `nrfloader_token` cookie or a `token` query
    /// parameter), or `nil` to serve without one, which only a loopback ``host`` may.
    public var token: String?
    /// The largest firmware file the station takes, in bytes (default 32 MiB).
    public var maximumUploadBytes = 32 << 20
    /// The catalog and the init packet fields firmware is loaded with, as `upload` loads it.
    public var firmwareOptions = FirmwareOptions()
    /// How jobs run (retries, timeouts, PRN, SMP mode), as `upload`'s options set them.
    public var updateOptions = UpdateOptions()
    /// How many ended jobs the history keeps, with their event lines (default 1000); running jobs are always kept.
    public var keptEndedJobs = 1000
    /// The simulated devices offered, by `upload --target` name (`sim`, `sim:buttonless`, `sim:legacy`,
    /// `sim:legacy-v1`, `sim:smp`), one device each; a name given twice is two devices.
    public var simulatedDevices: [SimulatedDeviceKind] = [.secure, .buttonless, .legacy, .smp]
    /// How the simulated devices behave (their speed above all; each gets its own address).
    public var simulatorOptions = SimulatedDeviceOptions()
    /// Whether to look for Bluetooth devices through BlueZ, in scans that repeat while the station runs.
    public var scansBluetooth = true
    /// The Bluetooth adapter to scan and update with, such as `hci0` (default: the first powered one).
    public var bluetoothAdapter: String?
    /// Whether to offer the serial ports of Nordic boards (and other USB serial adapters).
    public var offersSerialPorts = true

    /// The defaults: loopback port 8080, no token, the four kinds of simulated device, BlueZ and serial ports.
    public init() {}

    /// Whether ``host`` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): only the machine itself can
    /// reach it, so no token is needed.
    public var isLoopback: Bool {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Checks that the configuration may serve: off loopback only with a token.
    ///
    /// - Throws: `UpdateError` with `ExitStatus.usage` for a non-loopback ``host`` without ``token``, an empty
    ///   token, or a port out of range.
    public func validate() throws(UpdateError) {
        guard (0...65535).contains(port) else {
            throw UpdateError("port \(port) is out of range (0-65535)", exitStatus: .usage)
        }
        if let token, token.isEmpty {
            throw UpdateError("the token is empty: write a secret to the token file", exitStatus: .usage)
        }
        if !isLoopback && token == nil {
            throw UpdateError(
                "\(host) is not a loopback address: flashing is privileged, so serving it needs --token-file FILE",
                exitStatus: .usage)
        }
        if keptEndedJobs < 1 {
            throw UpdateError("the history must keep at least 1 ended job", exitStatus: .usage)
        }
        if maximumUploadBytes <= 0 {
            throw UpdateError("the upload limit must be at least 1 byte", exitStatus: .usage)
        }
    }
}

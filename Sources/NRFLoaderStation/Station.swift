import Hummingbird
import Logging
import NIOCore
public import NRFLoaderKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A flashing station: an HTTP server that offers the catalog, the devices and a page to update them from a browser,
/// and an API for programs: `nrfloader serve`.
///
/// ```swift
/// var configuration = StationConfiguration()
/// configuration.port = 0
/// let station = try Station(configuration: configuration)
/// try await station.run { port in print("listening on port \(port)") }
/// ```
///
/// Each job updates one device with `FirmwareUpdate`; its event stream carries the lines `nrfloader upload --json`
/// prints (`UpdateJSONLines`). ``stop()`` ends the server the way SIGTERM ends `nrfloader serve`.
public final class Station: Sendable {
    /// The configuration it serves.
    public let configuration: StationConfiguration

    private let devices: DeviceDirectory
    private let firmware: FirmwareLibrary
    private let jobs: JobBoard
    private let server = Mutex<Task<Void, any Error>?>(nil)
    private let stopRequested = Mutex(false)

    /// A station for `configuration`: checks it and loads the catalog.
    ///
    /// - Throws: `UpdateError`: `ExitStatus.usage` for a non-loopback address without a token
    ///   (``StationConfiguration/validate()``), or the catalog's own error.
    public init(configuration: StationConfiguration) throws(UpdateError) {
        try configuration.validate()
        self.configuration = configuration
        jobs = JobBoard(keptEndedJobs: configuration.keptEndedJobs)
        devices = try DeviceDirectory(configuration: configuration)
        firmware = try FirmwareLibrary(options: configuration.firmwareOptions)
    }

    /// Serves until ``stop()``: listens, reports the port, and answers requests.
    ///
    /// - Parameter onListening: Called once the socket listens, with its port (the one picked for port 0).
    /// - Throws: `UpdateError` with `ExitStatus.unavailable` when the address cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws(UpdateError) {
        let responder = StationResponder(
            access: StationAccess(token: configuration.token, isLoopback: configuration.isLoopback),
            devices: devices, firmware: firmware, jobs: jobs, updateOptions: configuration.updateOptions,
            maximumUploadBytes: configuration.maximumUploadBytes)
        var logger = Logger(label: "nrfloader.serve")
        logger.logLevel = .critical
        let address = configuration.host
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname(address, port: configuration.port)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        let task = Task { try await application.run() }
        let isStopped = server.withLock { server in
            server = task
            return stopRequested.withLock { $0 }
        }
        if isStopped { task.cancel() }
        let scanner =
            configuration.scansBluetooth
            ? Task { [devices, jobs, configuration] in
                // Scans pause while a Bluetooth job runs: its own connection and discovery come first.
                await devices.scanBluetooth(adapter: configuration.bluetoothAdapter) { jobs.hasRunningBluetoothJob }
            }
            : nil
        defer { scanner?.cancel() }
        do {
            try await task.value
        } catch is CancellationError {
        } catch {
            if stopRequested.withLock({ $0 }) { return }
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)).lowercased() } ?? "\(error)"
            throw UpdateError("cannot listen on \(address):\(configuration.port): \(reason)", exitStatus: .unavailable)
        }
    }

    /// Stops the station as SIGTERM stops `nrfloader serve`: refuses new jobs, aborts the running ones cleanly (each
    /// device told to abort, as Ctrl-C does), waits for them to end, then closes the server.
    ///
    /// - Returns: How many jobs were running.
    @discardableResult
    public func stop() async -> Int {
        stopRequested.withLock { $0 = true }
        let aborted = await jobs.stop()
        server.withLock { $0 }?.cancel()
        return aborted
    }
}

import ArgumentParser
import NRFLoaderKit
import NRFLoaderSimulator
import NRFLoaderStation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader serve`: the flashing station, a page and an HTTP API that update devices from a browser.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a flashing station: a web page and an HTTP API that update devices from a browser.",
        discussion: """
            The page lists the catalog and the devices (simulated devices, serial ports, and the Bluetooth devices a \
            live BlueZ scan finds), checks a firmware file as upload does, and runs one job per device with live \
            progress. The API is described at /api/openapi.json; each job's events are upload --json's lines. Off \
            loopback, serve needs --token-file: every request must then carry the token. SIGTERM or Ctrl-C stops \
            accepting jobs, aborts the running ones (each device told to abort) and exits 130.
            """
    )

    @Option(
        help: ArgumentHelp("The address and port to listen on (port 0 picks a free one).", valueName: "address:port"))
    var listen = "127.0.0.1:8080"

    @Option(
        help: ArgumentHelp(
            "A file holding the token every request must carry (required off loopback).", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The largest firmware file accepted, in bytes.", valueName: "bytes"))
    var maxUpload = 32 << 20

    @Option(
        name: .customLong("sim"),
        help: ArgumentHelp(
            "A simulated device to offer: sim, sim:buttonless, sim:legacy, sim:legacy-v1 or sim:smp; repeat it for "
                + "several (default: sim, sim:buttonless, sim:legacy, sim:smp)."))
    var simulated: [String] = []

    @Flag(help: "Offer no simulated device.")
    var noSim = false

    @Flag(help: "Do not scan for Bluetooth devices.")
    var noScan = false

    @Flag(help: "Do not offer serial ports.")
    var noSerial = false

    @Option(help: "The Bluetooth adapter to scan with, e.g. hci0 (default: the first powered adapter).")
    var adapter: String?

    @Option(help: "Simulation pace: 1 = real time, 10 = ten times faster, 0 = as fast as possible.")
    var simSpeed: Double = 1

    @OptionGroup var initPacketOptions: InitPacketOptions
    @OptionGroup var engineOptions: EngineOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        _ = try listenAddress()
        guard simSpeed >= 0 else { throw ValidationError("--sim-speed must be 0 or more") }
        guard maxUpload > 0 else { throw ValidationError("--max-upload must be at least 1 byte") }
        if noSim && !simulated.isEmpty { throw ValidationError("--no-sim excludes --sim") }
        _ = try simulatedKinds()
    }

    func run() async throws {
        var configuration = StationConfiguration()
        (configuration.host, configuration.port) = try listenAddress()
        configuration.token = try tokenFile.map(Self.readToken)
        configuration.maximumUploadBytes = maxUpload
        // Init packet fields for sent .hex and .bin files, as `upload` takes them; and the catalog.
        var firmwareOptions = initPacketOptions.firmwareOptions
        firmwareOptions.catalogFile = catalogOptions.catalog
        firmwareOptions.catalogReplacesEmbedded = catalogOptions.catalogReplace
        configuration.firmwareOptions = firmwareOptions
        configuration.updateOptions = engineOptions.updateOptions
        configuration.simulatedDevices = try simulatedKinds()
        configuration.simulatorOptions.speed = simSpeed
        configuration.scansBluetooth = !noScan
        configuration.bluetoothAdapter = adapter
        configuration.offersSerialPorts = !noSerial
        let station = try Station(configuration: configuration)
        // The signal's stop, stored before it can end the server, so that `run` returning finds it.
        let stopping = Mutex<Task<Int, Never>?>(nil)
        Interrupts.onFirstInterrupt {
            stopping.withLock { $0 = Task { await station.stop() } }
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let json = outputOptions.json
        let quiet = outputOptions.quiet
        try await station.run { port in
            let url = "http://\(host):\(port)/"
            if !quiet { Console.note("nrfloader serve: listening on \(url)") }
            if json {
                Console.json(
                    .object([
                        "schema": .int(JSONValue.schemaVersion), "event": .string("listening"), "url": .string(url),
                        "port": .int(port),
                    ]))
            }
        }
        guard let stop = stopping.withLock({ $0 }) else { return }
        let aborted = await stop.value
        throw UpdateError(
            "stopped by a signal (\(aborted) running job\(aborted == 1 ? "" : "s") aborted)", exitStatus: .interrupted)
    }

    /// `--listen` split into address and port: `HOST:PORT`, `[IPv6]:PORT`.
    private func listenAddress() throws -> (String, Int) {
        let invalid = ValidationError("--listen '\(listen)': expected ADDRESS:PORT, such as 127.0.0.1:8080")
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw invalid }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw invalid }
        return (host, port)
    }

    private func simulatedKinds() throws -> [SimulatedDeviceKind] {
        if noSim { return [] }
        if simulated.isEmpty { return [.secure, .buttonless, .legacy, .smp] }
        return try simulated.map { target in
            if target == "sim:smp" { return .smp }
            guard let kind = try UploadCommand.simulatedDFUKind(target, alsoValid: ", sim:smp") else {
                throw ValidationError(
                    "--sim '\(target)': not a simulated device (sim, sim:buttonless, sim:legacy, sim:legacy-v1, "
                        + "sim:smp)")
            }
            return kind
        }
    }

    /// The token: the file's first line, without surrounding white space.
    private static func readToken(_ path: String) throws -> String {
        let bytes = try InputText.read(path)
        let text = String(decoding: bytes, as: UTF8.self)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        return String(
            line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop {
                $0 == " " || $0 == "\t" || $0 == "\r"
            }.reversed())
    }
}

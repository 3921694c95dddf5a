import BlueZ
import BlueZTransport
import DBus
import DFUController
import DeviceLink
public import NRFLoaderKit
import SMP
import SMPBlueZ

/// Several Bluetooth LE devices updated at once, over one or more adapters: `nrfloader upload` with several
/// `--target`, `--targets-from`, `--name REGEX --all`, or several `--adapter`.
///
/// The fleet holds one BlueZ client for its nRF5 DFU updates, and keeps every adapter scanning while it runs
/// (``run(_:onEvent:)``), so that each device is found as soon as it advertises, however many wait. Each MCUboot
/// update gets a BlueZ client of its own. Make targets with ``target(address:adapter:options:)``: each adapter is a
/// lane of the `FleetUpdate`, with its own limit of updates at once.
public final class BluetoothFleet: Sendable {
    /// The adapters, such as `hci0`, in the order given (the first powered one when none was).
    public let adapters: [String]
    private let client: BlueZClient
    private let adapterInfos: [AdapterInfo]

    private init(client: BlueZClient, adapters: [AdapterInfo]) {
        self.client = client
        adapterInfos = adapters
        self.adapters = adapters.map(\.interfaceName)
    }

    /// Connects to BlueZ on the system bus and finds the adapters.
    ///
    /// - Parameter adapters: The adapters' names (`hci0`); empty for the first powered one. A name given twice
    ///   counts once.
    /// - Returns: The fleet.
    /// - Throws: `UpdateError` with status 69 (`unavailable`) when BlueZ or an adapter is missing.
    public static func open(adapters: [String] = []) async throws(UpdateError) -> BluetoothFleet {
        do {
            let client = try await BlueZClient.connect()
            var chosen: [AdapterInfo] = []
            for name in adapters.isEmpty ? [nil] : adapters.map(Optional.some) {
                let adapter = try await client.adapter(named: name)
                if !chosen.contains(where: { $0.path == adapter.path }) { chosen.append(adapter) }
            }
            return BluetoothFleet(client: client, adapters: chosen)
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
    }

    /// Every device whose advertised name matches `pattern`, scanning all adapters at once in 1-second rounds for
    /// `duration` (at least one round), or until `count` are found.
    ///
    /// - Parameters:
    ///   - pattern: A regular expression, matched anywhere in the name.
    ///   - duration: How long to search at most.
    ///   - count: Stop once this many are found; `nil` to search the whole duration.
    /// - Returns: The devices, each with the adapter that saw it first, in the order they were found.
    /// - Throws: `UpdateError`: status 64 for a bad expression, 69 when no device matched or BlueZ failed.
    public func devices(matching pattern: String, within duration: Duration, count: Int? = nil)
        async throws(UpdateError) -> [DiscoveredDevice]
    {
        do { _ = try Regex(pattern) } catch {
            throw UpdateError(OptionError(message: "'\(pattern)' is not a valid regular expression"), status: .usage)
        }
        let wanted = count ?? Int.max
        let started = ContinuousClock.now
        var found: [DiscoveredDevice] = []
        let client = client
        do {
            repeat {
                try await withThrowingTaskGroup(of: [DiscoveredDevice].self) { group in
                    for adapter in adapterInfos {
                        group.addTask {
                            let regex = try Regex(pattern)
                            var matches: [DiscoveredDevice] = []
                            try await DFUScanner(client: client).scan(
                                adapter: adapter, duration: .seconds(1), includeAll: true
                            ) { device in
                                guard let name = device.name, (try? regex.firstMatch(in: name)) != nil else { return }
                                matches.append(DiscoveredDevice(device, adapter: adapter.interfaceName))
                            }
                            return matches
                        }
                    }
                    for try await matches in group {
                        for device in matches where !found.contains(where: { $0.address == device.address }) {
                            found.append(device)
                        }
                    }
                }
            } while found.count < wanted && started.duration(to: .now) < duration
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
        guard !found.isEmpty else {
            throw UpdateError(
                DeviceNameFailure.notFound(
                    name: pattern, adapter: adapters.joined(separator: ","), seconds: Int(duration.components.seconds)),
                status: .unavailable)
        }
        return Array(found.prefix(wanted))
    }

    /// The device at `address`, reached through `adapter` (the fleet's first adapter by default).
    ///
    /// - Parameters:
    ///   - address: `AA:BB:CC:DD:EE:FF`.
    ///   - adapter: One of ``adapters``.
    ///   - options: How devices are reached; its `adapter` is ignored (the fleet's is used).
    /// - Returns: The target, whose lane is its adapter.
    /// - Throws: `UpdateError` with status 64 for an address that is not one, or an adapter not in the fleet.
    public func target(address: String, adapter: String? = nil, options: BluetoothOptions = BluetoothOptions())
        throws(UpdateError) -> UpdateTarget
    {
        let parsed: BluetoothAddress
        do { parsed = try BluetoothAddress(parsing: address) } catch { throw UpdateError(error, status: .usage) }
        guard
            let chosen = adapter.map({ name in adapterInfos.first { $0.interfaceName == name } }) ?? adapterInfos.first
        else {
            throw UpdateError(
                OptionError(message: "adapter '\(adapter ?? "")' is not one of the fleet's"), status: .usage)
        }
        let client = client
        var onAdapter = options
        onAdapter.adapter = chosen.interfaceName
        let options = onAdapter
        let label = "\(parsed) via \(chosen.interfaceName)"
        let dfu: UpdateTarget.Run = { firmware, updateOptions, onEvent throws(UpdateError) in
            let transportOptions = BluetoothDevices.transportOptions(options, update: updateOptions)
            let dfuFirmware = try UpdateError.wrapping { try firmware.dfuFirmware(defaultProtocol: nil) }
            // One transport per device on the fleet's one client (and its one D-Bus connection).
            let transport: BlueZGATTTransport
            do {
                transport = try await BlueZGATTTransport.open(
                    client: client, adapter: chosen, options: transportOptions)
            } catch {
                throw UpdateError(error, status: .unavailable)
            }
            return try await DFUSession.run(
                dfuFirmware, input: firmware.name, to: parsed, named: label, over: transport,
                configuration: updateOptions.dfuConfiguration,
                onEvent: onEvent)
        }
        let smp: UpdateTarget.Run = { firmware, updateOptions, onEvent throws(UpdateError) in
            let transportOptions = BluetoothDevices.transportOptions(options, update: updateOptions)
            // An SMP session gets a client of its own, so that its discovery session is its own.
            let gatt: BlueZGATTTransport
            do {
                let own = try await BlueZClient.connect()
                gatt = try await BlueZGATTTransport.open(
                    client: own, adapter: try await own.adapter(named: chosen.interfaceName), options: transportOptions)
            } catch {
                throw UpdateError(error, status: .unavailable)
            }
            defer { gatt.client.connection.close() }
            var configuration = updateOptions.smpConfiguration
            if let timeout = updateOptions.timeoutSeconds { configuration.connectionTimeout = .seconds(timeout) }
            let (images, package) = try firmware.mcubootImages(for: label)
            return try await SMPSession.run(
                images, package: package, named: label,
                over: BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: parsed)),
                configuration: configuration, onEvent: onEvent)
        }
        return UpdateTarget(description: address, lane: chosen.interfaceName, dfu: dfu, smp: smp)
    }

    /// Runs `fleet` while every adapter of this fleet keeps scanning.
    ///
    /// Each transport starts discovery when it looks for its device and stops it once found; BlueZ keeps one
    /// discovery session per D-Bus client, so on a shared client the first device found would stop the scan the
    /// others still wait on. A session held by another client keeps the adapters scanning until the run ends, and
    /// its sightings reach every transport.
    ///
    /// - Parameters:
    ///   - fleet: Updates of targets made by ``target(address:adapter:options:)``.
    ///   - onEvent: Each device's events, as `FleetUpdate/run(onEvent:)` reports them.
    /// - Returns: One outcome per device.
    /// - Throws: `UpdateError` with status 69 when the scanning client cannot be opened.
    public func run(_ fleet: FleetUpdate, onEvent: @escaping @Sendable (FleetUpdate.Event) -> Void = { _ in })
        async throws(UpdateError) -> [FleetUpdate.Outcome]
    {
        let scanner: BlueZClient
        do {
            scanner = try await BlueZClient.connect()
            for adapter in adapterInfos {
                do {
                    try await scanner.startDiscovery(on: adapter)
                } catch .inProgress {
                    // Already scanning for this client.
                }
            }
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
        let outcomes = await fleet.run(onEvent: onEvent)
        for adapter in adapterInfos { try? await scanner.stopDiscovery(on: adapter) }
        scanner.connection.close()
        return outcomes
    }
}

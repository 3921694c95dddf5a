package import BlueZ
package import BlueZTransport
import DBus
import DFUController
package import DeviceLink
public import NRFLoaderKit
import SMP
import SMPBlueZ
import SMPTargetAdapter

/// How a Bluetooth LE device is reached through BlueZ: `nrfloader upload`'s `--adapter`, `--wait` and
/// `--no-acquire`.
public struct BluetoothOptions: Sendable {
    /// The adapter, such as `hci0`; `nil` for the first powered one.
    public var adapter: String?
    /// How long to look for the device before the first connection (a name search included); `nil` for 15 s, or
    /// the update's `UpdateOptions/timeout` when it is set.
    public var searchTimeout: Duration?
    /// Whether packets and notifications go through BlueZ's `AcquireWrite` and `AcquireNotify` sockets when the
    /// device allows, rather than D-Bus calls only (default `true`: faster, and lighter on the bus).
    public var usesAcquiredSockets = true

    /// The first powered adapter, default waits, acquired sockets.
    public init() {}
}

extension UpdateTarget {
    /// The Bluetooth LE device at `address` (`AA:BB:CC:DD:EE:FF`), through BlueZ on the system bus.
    ///
    /// nRF5 firmware goes over Secure or legacy DFU (buttonless entry included), as the device offers; MCUboot
    /// firmware goes over SMP. libdbus's thread and BlueZ's objects stay inside the transport.
    ///
    /// - Throws: `UpdateError` with `ExitStatus/usage` for an address that is not one.
    public static func bluetooth(address: String, options: BluetoothOptions = BluetoothOptions()) throws(UpdateError)
        -> UpdateTarget
    {
        do { _ = try BluetoothAddress(parsing: address) } catch {
            throw UpdateError(error, status: .usage)
        }
        return BluetoothUpdate.target(
            description: address, address: address, name: nil, options: options,
            openManagementLink: BluetoothDevices.managementLink(address: address, name: nil, options: options))
    }

    /// The one Bluetooth LE device advertising exactly `name`, searched for through BlueZ (an error if several do).
    public static func bluetooth(name: String, options: BluetoothOptions = BluetoothOptions()) -> UpdateTarget {
        BluetoothUpdate.target(
            description: "'\(name)'", address: nil, name: name, options: options,
            openManagementLink: BluetoothDevices.managementLink(address: nil, name: name, options: options))
    }
}

/// One update through BlueZ.
struct BluetoothUpdate {
    var address: String?
    var name: String?
    var options: BluetoothOptions
    var update: UpdateOptions

    /// A target reached through BlueZ, carrying both protocols.
    static func target(
        description: String, address: String?, name: String?, options: BluetoothOptions,
        openManagementLink: @escaping UpdateTarget.OpenManagementLink
    ) -> UpdateTarget {
        UpdateTarget(
            description: description, lane: options.adapter ?? "default", openManagementLink: openManagementLink,
            dfu: { firmware, updateOptions, onEvent throws(UpdateError) in
                try await BluetoothUpdate(address: address, name: name, options: options, update: updateOptions)
                    .runDFU(firmware, onEvent)
            },
            smp: { firmware, updateOptions, onEvent throws(UpdateError) in
                try await BluetoothUpdate(address: address, name: name, options: options, update: updateOptions)
                    .runSMP(firmware, onEvent)
            })
    }

    private func openDevice() async throws(UpdateError) -> BluetoothDevices.Opened {
        try await BluetoothDevices.open(
            target: address, name: name, adapter: options.adapter,
            options: BluetoothDevices.transportOptions(options, update: update),
            nameSearch: BluetoothDevices.searchSeconds(options, update: update))
    }

    /// SMP to an MCUboot device.
    func runSMP(_ firmware: Firmware, _ onEvent: (UpdateEvent) -> Void) async throws(UpdateError) -> UpdateSummary {
        let device = try await openDevice()
        var configuration = update.smpConfiguration
        if let timeout = update.timeoutSeconds { configuration.connectionTimeout = .seconds(timeout) }
        let (images, package) = try firmware.mcubootImages(for: device.label)
        return try await SMPSession.run(
            images, package: package, named: device.label,
            over: BlueZSMPTransport(gatt: device.transport, request: ConnectionRequest(address: device.address)),
            configuration: configuration, onEvent: onEvent)
    }

    /// nRF5 DFU, Secure or legacy, as the device offers.
    func runDFU(_ firmware: Firmware, _ onEvent: (UpdateEvent) -> Void) async throws(UpdateError) -> UpdateSummary {
        // The input first: a bad file fails before any radio work.
        let dfuFirmware = try UpdateError.wrapping { try firmware.dfuFirmware(defaultProtocol: nil) }
        let device = try await openDevice()
        let transport = device.transport
        return try await DFUSession.run(
            dfuFirmware, input: firmware.name, to: device.address, named: device.label, over: transport,
            configuration: update.dfuConfiguration,
            describeLink: {
                let paths = transport.paths
                return "link: packets via \(paths.acquiredWrite ? "AcquireWrite socket" : "D-Bus WriteValue"), "
                    + "notifications via \(paths.acquiredNotify ? "AcquireNotify socket" : "D-Bus PropertiesChanged")"
            }, onEvent: onEvent)
    }
}

/// Opening a device through BlueZ: `upload`'s and the SMP commands' one way.
package enum BluetoothDevices {
    /// A device found and a transport open to reach it.
    package struct Opened: Sendable {
        /// The device's address.
        package var address: BluetoothAddress
        /// The transport.
        package var transport: BlueZGATTTransport
        /// The device as the output names it: `AA:BB:… via hci0`, or `'name' (AA:BB:…) via hci0`.
        package var label: String
    }

    /// The device at `target`, or the one advertising `name` (searched for `nameSearch` seconds), on `adapter`; a
    /// BlueZ transport open to reach it; and the name the output gives it.
    package static func open(
        target: String?, name: String?, adapter: String?, options: BlueZGATTTransport.Options, nameSearch: Int
    ) async throws(UpdateError) -> Opened {
        do {
            let client = try await BlueZClient.connect()
            let chosen = try await client.adapter(named: adapter)
            let address: BluetoothAddress
            if let target {
                address = try BluetoothAddress(parsing: target)
            } else {
                address = try await resolve(name: name ?? "", client: client, adapter: chosen, seconds: nameSearch)
            }
            let transport = try await BlueZGATTTransport.open(client: client, adapter: chosen, options: options)
            let label =
                name.map { "'\($0)' (\(address)) via \(chosen.interfaceName)" }
                ?? "\(address) via \(chosen.interfaceName)"
            return Opened(address: address, transport: transport, label: label)
        } catch let error as BlueZError {
            throw UpdateError(error, status: .unavailable)
        } catch {
            throw UpdateError(error)
        }
    }

    /// How management requests reach the device at `address`, or the one advertising `name`: SMP on a BlueZ
    /// transport, as `upload` reaches it.
    ///
    /// The management timeout bounds each BlueZ call too, and the name search unless the options set its own.
    package static func managementLink(address: String?, name: String?, options: BluetoothOptions)
        -> UpdateTarget.OpenManagementLink
    {
        { management throws(UpdateError) in
            var transport = BlueZGATTTransport.Options()
            transport.usesAcquiredSockets = options.usesAcquiredSockets
            if let search = options.searchTimeout { transport.firstSearchTimeout = search }
            if let timeout = management.timeout { transport.operationTimeout = timeout }
            let search = options.searchTimeout ?? management.timeout ?? .seconds(15)
            let device = try await open(
                target: address, name: name, adapter: options.adapter, options: transport,
                nameSearch: max(1, Int(search.components.seconds)))
            return BlueZSMPTransport(gatt: device.transport, request: ConnectionRequest(address: device.address))
        }
    }

    /// How long a name search lasts: the search timeout in whole seconds, else 15 s (the connection timeout).
    package static func searchSeconds(_ options: BluetoothOptions, update: UpdateOptions) -> Int {
        if let search = options.searchTimeout { return max(1, Int(search.components.seconds)) }
        return Int(update.dfuConfiguration.connectionTimeout / .seconds(1))
    }

    /// The BlueZ transport's behaviour.
    ///
    /// One timeout model (issue 16): the timeout bounds every wait on the device, ATT write responses included; the
    /// retries bound the connection attempts as they bound the reconnections.
    package static func transportOptions(_ options: BluetoothOptions, update: UpdateOptions)
        -> BlueZGATTTransport.Options
    {
        var transport = BlueZGATTTransport.Options()
        transport.usesAcquiredSockets = options.usesAcquiredSockets
        if let search = options.searchTimeout { transport.firstSearchTimeout = search }
        transport.operationTimeout = update.dfuConfiguration.responseTimeout
        if let retries = update.retries { transport.connectionAttempts = retries }
        return transport
    }

    /// The one device advertising `name` exactly, scanning in 3-second rounds for `limit` seconds (at least one
    /// round).
    package static func resolve(name: String, client: BlueZClient, adapter: AdapterInfo, seconds limit: Int)
        async throws -> BluetoothAddress
    {
        let started = ContinuousClock.now
        var matches: [ScannedDevice] = []
        repeat {
            try await DFUScanner(client: client).scan(adapter: adapter, duration: .seconds(3), includeAll: true) {
                device in
                if device.name == name, !matches.contains(where: { $0.address == device.address }) {
                    matches.append(device)
                }
            }
        } while matches.isEmpty && started.duration(to: .now) < .seconds(limit)
        switch matches.count {
        case 0:
            throw UpdateError(
                DeviceNameFailure.notFound(name: name, adapter: adapter.interfaceName, seconds: max(limit, 3)),
                status: .unavailable, mentioning: [.longerSearch])
        case 1:
            return matches[0].address
        default:
            let listed = matches.map { device in
                device.rssi.map { "\(device.address) (RSSI \($0))" } ?? device.address.description
            }
            throw UpdateError(
                DeviceNameFailure.ambiguous(name: name, adapter: adapter.interfaceName, devices: listed),
                status: .usage, mentioning: [.deviceAddress])
        }
    }
}

/// No device, or more than one, advertised the name a target was asked for by.
///
/// The messages name the search timeout and the address as this library's options; `nrfloader` renders those
/// mentions as its `--wait` and `--target` options.
struct DeviceNameFailure: Error, CustomStringConvertible {
    private enum Kind {
        case notFound(seconds: Int)
        case ambiguous(devices: [String])
    }

    private var name: String
    private var adapter: String
    private var kind: Kind

    /// No device advertising `name` was seen on `adapter` in `seconds`.
    static func notFound(name: String, adapter: String, seconds: Int) -> Self {
        Self(name: name, adapter: adapter, kind: .notFound(seconds: seconds))
    }

    /// Several devices advertise `name` on `adapter`: each `ADDRESS (RSSI)`.
    static func ambiguous(name: String, adapter: String, devices: [String]) -> Self {
        Self(name: name, adapter: adapter, kind: .ambiguous(devices: devices))
    }

    var description: String {
        switch kind {
        case .notFound(let seconds):
            "no device advertising the name '\(name)' seen on \(adapter) in \(seconds) s (a longer "
                + "BluetoothOptions.searchTimeout waits longer)"
        case .ambiguous(let devices):
            "\(devices.count) devices advertise the name '\(name)' on \(adapter): \(devices.joined(separator: ", ")); "
                + "choose one by its address"
        }
    }
}

package import DBus

/// BlueZ's object tree over a `BusConnection`: adapters, devices, discovery and their signals.
///
/// Every failure is a `BlueZError`: an absent BlueZ, a refusing bus policy and BlueZ's own `org.bluez.Error.*`
/// replies each have their own case.
package struct BlueZClient: Sendable {
    /// The bus connection.
    package let connection: BusConnection
    /// How long a call to BlueZ may take.
    ///
    /// The default is libdbus's own default reply timeout, 25 s, which BlueZ's
    /// slowest ordinary calls (Connect: LE connection plus service discovery) stay under.
    package var callTimeout: Duration

    /// Wraps a connection.
    ///
    /// - Parameters:
    ///   - connection: A connection to the bus BlueZ is on.
    ///   - callTimeout: The reply timeout for calls to BlueZ.
    package init(connection: BusConnection, callTimeout: Duration = .seconds(25)) {
        self.connection = connection
        self.callTimeout = callTimeout
    }

    /// Connects to a bus.
    ///
    /// - Parameter address: The bus; the system bus by default.
    /// - Returns: The client.
    /// - Throws: ``BlueZError/busUnavailable(_:)``.
    package static func connect(_ address: BusAddress = .system) async throws(BlueZError) -> BlueZClient {
        do {
            return BlueZClient(connection: try await BusConnection.open(address))
        } catch {
            throw BlueZError(error)
        }
    }

    /// Calls a BlueZ method.
    ///
    /// - Throws: ``BlueZError``, sorted from the D-Bus failure.
    @discardableResult
    package func call(
        path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) async throws(BlueZError) -> [DBusValue] {
        do {
            return try await connection.call(
                destination: BlueZInterface.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: callTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    /// Every adapter, device and GATT characteristic BlueZ exports (`GetManagedObjects` on `/`).
    ///
    /// - Returns: The objects, sorted by path.
    /// - Throws: ``BlueZError/notRunning(_:)`` when BlueZ is absent, ``BlueZError/permissionDenied(_:)``, ….
    package func managedObjects() async throws(BlueZError) -> BlueZObjects {
        let reply = try await call(path: "/", interface: BlueZInterface.objectManager, member: "GetManagedObjects")
        return BlueZObjects(managedObjects: reply.first ?? .dictionary(key: .objectPath, value: .variant, []))
    }

    /// The adapter to use: the one named (`hci1`, or its address), or the first powered one.
    ///
    /// - Parameter name: The adapter's interface name or address; `nil` for the first powered adapter.
    /// - Returns: The adapter.
    /// - Throws: ``BlueZError/noAdapter(requested:)``, ``BlueZError/adapterPoweredOff(_:)``, or what
    ///   ``managedObjects()`` throws.
    package func adapter(named name: String?) async throws(BlueZError) -> AdapterInfo {
        try Self.chooseAdapter(from: try await managedObjects().adapters, named: name)
    }

    /// Picks an adapter (the rule of ``adapter(named:)``) from a list.
    ///
    /// - Throws: ``BlueZError/noAdapter(requested:)``, ``BlueZError/adapterPoweredOff(_:)``.
    package static func chooseAdapter(from adapters: [AdapterInfo], named name: String?) throws(BlueZError)
        -> AdapterInfo
    {
        if let name {
            let match = adapters.first {
                $0.interfaceName == name || $0.address?.description == name.uppercased()
            }
            guard let match else { throw .noAdapter(requested: name) }
            guard match.isPowered else { throw .adapterPoweredOff(match.interfaceName) }
            return match
        }
        guard let first = adapters.first else { throw .noAdapter(requested: nil) }
        guard let powered = adapters.first(where: \.isPowered) else { throw .adapterPoweredOff(first.interfaceName) }
        return powered
    }

    /// Sets the adapter's discovery filter (`Adapter1.SetDiscoveryFilter`).
    ///
    /// - Throws: ``BlueZError``.
    package func setDiscoveryFilter(_ filter: DiscoveryFilter, on adapter: AdapterInfo) async throws(BlueZError) {
        try await call(
            path: adapter.path, interface: BlueZInterface.adapter, member: "SetDiscoveryFilter",
            arguments: [filter.dictionary])
    }

    /// Starts scanning (`Adapter1.StartDiscovery`).
    ///
    /// - Throws: ``BlueZError``; ``BlueZError/notReady(_:)`` when the adapter is off.
    package func startDiscovery(on adapter: AdapterInfo) async throws(BlueZError) {
        try await call(path: adapter.path, interface: BlueZInterface.adapter, member: "StartDiscovery")
    }

    /// Stops scanning (`Adapter1.StopDiscovery`).
    ///
    /// - Throws: ``BlueZError``.
    package func stopDiscovery(on adapter: AdapterInfo) async throws(BlueZError) {
        try await call(path: adapter.path, interface: BlueZInterface.adapter, member: "StopDiscovery")
    }

    /// BlueZ's object signals, in the order BlueZ sent them.
    ///
    /// Subscribe before reading ``managedObjects()``: then no change falls between the snapshot and the stream.
    ///
    /// - Returns: `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged` of every BlueZ object.
    /// - Throws: ``BlueZError``.
    package func events() async throws(BlueZError) -> some AsyncSequence<BlueZEvent, Never> & Sendable {
        let signals: AsyncStream<DBusSignal>
        do {
            signals = try await connection.signals(matching: DBusMatchRule(sender: BlueZInterface.service))
        } catch {
            throw BlueZError(error)
        }
        return signals.compactMap { BlueZEvent($0) }
    }
}

/// A change in BlueZ's object tree.
package enum BlueZEvent: Sendable, Hashable {
    /// An object gained interfaces (a device was found, a GATT service resolved): interface → properties.
    case interfacesAdded(path: String, interfaces: [String: [String: DBusValue]])
    /// An object lost interfaces (a device was removed).
    case interfacesRemoved(path: String, interfaces: [String])
    /// Properties of one interface changed (`RSSI`, `Connected`, `ServicesResolved`, a characteristic `Value`).
    case propertiesChanged(path: String, interface: String, changed: [String: DBusValue], invalidated: [String])

    init?(_ signal: DBusSignal) {
        switch (signal.interface, signal.member) {
        case (BlueZInterface.objectManager, "InterfacesAdded"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].stringValue else { return nil }
            self = .interfacesAdded(path: path, interfaces: BlueZObjects.interfaces(signal.arguments[1]))
        case (BlueZInterface.objectManager, "InterfacesRemoved"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].stringValue else { return nil }
            self = .interfacesRemoved(path: path, interfaces: signal.arguments[1].stringArrayValue ?? [])
        case (BlueZInterface.properties, "PropertiesChanged"):
            guard signal.arguments.count == 3, let interface = signal.arguments[0].stringValue else { return nil }
            self = .propertiesChanged(
                path: signal.path, interface: interface,
                changed: (signal.arguments[1].stringKeyedDictionary ?? [:]).mapValues(\.unwrappingVariant),
                invalidated: signal.arguments[2].stringArrayValue ?? [])
        default:
            return nil
        }
    }
}

/// `Adapter1.SetDiscoveryFilter`'s options (BlueZ `org.bluez.Adapter.rst`).
package struct DiscoveryFilter: Sendable, Hashable {
    /// `Transport`: DFU targets are LE only.
    package var transport: String
    /// `UUIDs`: report only devices advertising one of these; empty for all.
    package var uuids: [String]
    /// `RSSI`: report only devices at least this strong, in dBm.
    package var minimumRSSI: Int16?
    /// `DuplicateData`: report every advertisement, so that `RSSI` keeps updating.
    package var reportsDuplicates: Bool

    /// Creates a filter.
    package init(
        transport: String = "le", uuids: [String] = [], minimumRSSI: Int16? = nil, reportsDuplicates: Bool = true
    ) {
        self.transport = transport
        self.uuids = uuids
        self.minimumRSSI = minimumRSSI
        self.reportsDuplicates = reportsDuplicates
    }

    /// The `a{sv}` argument.
    package var dictionary: DBusValue {
        var properties: [String: DBusValue] = [
            "Transport": .string(transport), "DuplicateData": .bool(reportsDuplicates),
        ]
        // Always sent, also empty: SetDiscoveryFilter replaces the whole filter, and an explicit empty list says
        // "every device" to a daemon that kept an earlier client's UUIDs (bluezoo does).
        properties["UUIDs"] = .stringArray(uuids.map { $0.lowercased() })
        if let minimumRSSI { properties["RSSI"] = .int16(minimumRSSI) }
        return .propertyDictionary(properties)
    }
}

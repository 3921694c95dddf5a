package import DBus
package import DeviceLink

/// A Bluetooth adapter as BlueZ exports it (`org.bluez.Adapter1`).
package struct AdapterInfo: Sendable, Hashable {
    /// The object path: `/org/bluez/hci0`.
    package var path: String
    /// The adapter's address.
    package var address: BluetoothAddress?
    /// The adapter's system name (`Name`).
    package var name: String
    /// Whether it is powered on.
    package var isPowered: Bool
    /// Whether it is scanning.
    package var isDiscovering: Bool

    /// The interface name used on the command line: `hci0`.
    package var interfaceName: String { String(path.split(separator: "/").last ?? Substring(path)) }

    /// Creates an adapter description.
    package init(path: String, address: BluetoothAddress?, name: String, isPowered: Bool, isDiscovering: Bool) {
        self.path = path
        self.address = address
        self.name = name
        self.isPowered = isPowered
        self.isDiscovering = isDiscovering
    }

    /// Reads the description from the interface's properties (variants unwrapped).
    package init(path: String, properties: [String: DBusValue]) {
        self.path = path
        address = properties["Address"]?.stringValue.flatMap { try? BluetoothAddress(parsing: $0) }
        name = properties["Name"]?.stringValue ?? ""
        isPowered = properties["Powered"]?.boolValue ?? false
        isDiscovering = properties["Discovering"]?.boolValue ?? false
    }
}

/// A remote device as BlueZ exports it (`org.bluez.Device1`).
package struct DeviceInfo: Sendable, Hashable {
    /// The object path: `/org/bluez/hci0/dev_C0_DE_00_00_00_02`.
    package var path: String
    /// The adapter's object path.
    package var adapterPath: String
    /// The device's address.
    package var address: BluetoothAddress?
    /// The advertised name, if any.
    package var name: String?
    /// The last received signal strength in dBm; BlueZ has none for a cached device not seen in this scan, and 127
    /// is HCI's "not available" (btvirt reports nothing else), kept as `nil`.
    package var rssi: Int?
    /// Advertised or discovered service UUIDs, uppercase.
    package var uuids: [String]
    /// Whether the device is connected.
    package var isConnected: Bool
    /// Whether BlueZ has finished discovering its GATT services.
    package var servicesResolved: Bool
    /// Whether the device is paired (removing it would drop its keys).
    package var isPaired: Bool

    /// Reads the description from the interface's properties (variants unwrapped).
    package init(path: String, properties: [String: DBusValue]) {
        self.path = path
        adapterPath = properties["Adapter"]?.stringValue ?? ""
        address = properties["Address"]?.stringValue.flatMap { try? BluetoothAddress(parsing: $0) }
        name = properties["Name"]?.stringValue
        rssi = properties["RSSI"]?.intValue.flatMap(Self.measuredRSSI)
        uuids = (properties["UUIDs"]?.stringArrayValue ?? []).map { $0.uppercased() }
        isConnected = properties["Connected"]?.boolValue ?? false
        servicesResolved = properties["ServicesResolved"]?.boolValue ?? false
        isPaired = properties["Paired"]?.boolValue ?? false
        if servicesResolved { isConnected = true }
    }

    /// The device with changed properties applied (from `PropertiesChanged`).
    package func updated(with changed: [String: DBusValue]) -> DeviceInfo {
        var copy = self
        if let value = changed["Name"]?.stringValue { copy.name = value }
        if let value = changed["RSSI"]?.intValue { copy.rssi = Self.measuredRSSI(value) }
        if let value = changed["UUIDs"]?.stringArrayValue { copy.uuids = value.map { $0.uppercased() } }
        if let value = changed["Connected"]?.boolValue {
            copy.isConnected = value
            if !value { copy.servicesResolved = false }
        }
        // Services resolved imply a link: bluetoothd 5.66 often signals no Connected=true (testrig.md).
        if let value = changed["ServicesResolved"]?.boolValue {
            copy.servicesResolved = value
            if value { copy.isConnected = true }
        }
        if let value = changed["Paired"]?.boolValue { copy.isPaired = value }
        return copy
    }

    /// A reported RSSI, or `nil` for 127, HCI's "RSSI not available".
    static func measuredRSSI(_ value: Int) -> Int? {
        value == 127 ? nil : value
    }
}

/// A GATT characteristic of a connected device (`org.bluez.GattCharacteristic1`).
package struct CharacteristicInfo: Sendable, Hashable {
    /// The object path: `…/dev_…/service0001/char0002`.
    package var path: String
    /// The characteristic's UUID, uppercase.
    package var uuid: String
    /// The object path of its service.
    package var servicePath: String
    /// BlueZ's flags: `read`, `write`, `write-without-response`, `notify`, `indicate`, ….
    package var flags: [String]
    /// The ATT MTU BlueZ reports for the link (BlueZ 5.62+), if it reports one.
    package var mtu: Int?

    /// Reads the description from the interface's properties (variants unwrapped).
    package init(path: String, properties: [String: DBusValue]) {
        self.path = path
        uuid = (properties["UUID"]?.stringValue ?? "").uppercased()
        servicePath = properties["Service"]?.stringValue ?? ""
        flags = properties["Flags"]?.stringArrayValue ?? []
        mtu = properties["MTU"]?.intValue
    }
}

/// Everything `GetManagedObjects` returned that the tool uses, sorted by object path.
package struct BlueZObjects: Sendable, Hashable {
    /// The adapters.
    package var adapters: [AdapterInfo]
    /// The devices BlueZ knows (seen in a scan, cached, or connected).
    package var devices: [DeviceInfo]
    /// The GATT characteristics of connected devices.
    package var characteristics: [CharacteristicInfo]

    /// Sorts the objects of a `GetManagedObjects` reply (`a{oa{sa{sv}}}`) by interface.
    init(managedObjects: DBusValue) {
        var adapters: [AdapterInfo] = []
        var devices: [DeviceInfo] = []
        var characteristics: [CharacteristicInfo] = []
        for (path, interfaces) in Self.interfacesByPath(managedObjects) {
            if let properties = interfaces[BlueZInterface.adapter] {
                adapters.append(AdapterInfo(path: path, properties: properties))
            }
            if let properties = interfaces[BlueZInterface.device] {
                devices.append(DeviceInfo(path: path, properties: properties))
            }
            if let properties = interfaces[BlueZInterface.characteristic] {
                characteristics.append(CharacteristicInfo(path: path, properties: properties))
            }
        }
        self.adapters = adapters.sorted { $0.path < $1.path }
        self.devices = devices.sorted { $0.path < $1.path }
        self.characteristics = characteristics.sorted { $0.path < $1.path }
    }

    /// `a{oa{sa{sv}}}` as path → interface → property → value.
    static func interfacesByPath(_ value: DBusValue) -> [(String, [String: [String: DBusValue]])] {
        guard case .dictionary(_, _, let entries) = value else { return [] }
        return entries.compactMap { entry in
            guard let path = entry.key.stringValue else { return nil }
            return (path, interfaces(entry.value))
        }
    }

    /// `a{sa{sv}}` as interface → property → value (variants unwrapped).
    static func interfaces(_ value: DBusValue) -> [String: [String: DBusValue]] {
        var result: [String: [String: DBusValue]] = [:]
        for (interface, properties) in value.stringKeyedDictionary ?? [:] {
            result[interface] = (properties.stringKeyedDictionary ?? [:]).mapValues(\.unwrappingVariant)
        }
        return result
    }
}

/// BlueZ's D-Bus names, for the central here and for GATT applications served to BlueZ.
package enum BlueZInterface {
    /// BlueZ's bus name.
    package static let service = "org.bluez"
    package static let adapter = "org.bluez.Adapter1"
    package static let device = "org.bluez.Device1"
    package static let gattService = "org.bluez.GattService1"
    package static let characteristic = "org.bluez.GattCharacteristic1"
    package static let gattManager = "org.bluez.GattManager1"
    package static let advertisement = "org.bluez.LEAdvertisement1"
    package static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    package static let objectManager = "org.freedesktop.DBus.ObjectManager"
    package static let properties = "org.freedesktop.DBus.Properties"
}

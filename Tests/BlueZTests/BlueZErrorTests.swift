import BlueZ
import DBus
import Testing

@Suite("BlueZError and adapter choice")
struct BlueZErrorTests {
    static let messages: [(BlueZError, String)] = [
        (
            .notRunning(.errorReply(name: DBusError.Names.serviceUnknown, message: "")),
            "bluetooth is not available: bluez (org.bluez) is not running on the system bus"
        ),
        (
            .permissionDenied(.errorReply(name: DBusError.Names.accessDenied, message: "")),
            "permission denied talking to bluez: the d-bus policy refuses this user"
        ),
        (.noAdapter(requested: nil), "no bluetooth adapter found"),
        (.noAdapter(requested: "hci3"), "no bluetooth adapter named 'hci3'"),
        (.adapterPoweredOff("hci0"), "bluetooth adapter 'hci0' is powered off"),
        (
            .inProgress(.errorReply(name: "org.bluez.Error.InProgress", message: "Operation already in progress")),
            "bluez: Operation already in progress (org.bluez.Error.InProgress)"
        ),
    ]

    @Test("every error is one line", arguments: messages)
    func message(error: BlueZError, text: String) {
        #expect(error.description == text)
    }

    @Test(
        "sorts D-Bus error names into cases",
        arguments: [
            (DBusError.Names.serviceUnknown, "notRunning"), (DBusError.Names.nameHasNoOwner, "notRunning"),
            (DBusError.Names.accessDenied, "permissionDenied"), ("org.bluez.Error.NotReady", "notReady"),
            ("org.bluez.Error.Failed", "failed"), ("org.bluez.Error.Brand.New", "bus"),
        ])
    func sorting(name: String, caseName: String) {
        let error = BlueZError(.errorReply(name: name, message: "m"))
        #expect(String(describing: error).isEmpty == false)
        #expect(Mirror(reflecting: error).children.first?.label == caseName)
        #expect(error.cause == .errorReply(name: name, message: "m"))
    }

    @Test("a vanished peer that BlueZ relays (a unique name unknown) is not BlueZ missing")
    func relayedServiceUnknown() {
        let relayed = DBusError.errorReply(
            name: DBusError.Names.serviceUnknown, message: "The name :1.12 was not provided by any .service files")
        #expect(BlueZError(relayed) == .bus(relayed))
        let absent = DBusError.errorReply(
            name: DBusError.Names.serviceUnknown, message: "The name org.bluez was not provided by any .service files")
        #expect(BlueZError(absent) == .notRunning(absent))
    }

    static func adapter(_ name: String, powered: Bool) -> AdapterInfo {
        AdapterInfo(path: "/org/bluez/" + name, address: nil, name: name, isPowered: powered, isDiscovering: false)
    }

    @Test("picks the named adapter, else the first powered one")
    func choice() throws {
        let adapters = [Self.adapter("hci0", powered: false), Self.adapter("hci1", powered: true)]
        #expect(try BlueZClient.chooseAdapter(from: adapters, named: nil).interfaceName == "hci1")
        #expect(try BlueZClient.chooseAdapter(from: adapters, named: "hci1").interfaceName == "hci1")
        #expect(throws: BlueZError.adapterPoweredOff("hci0")) {
            try BlueZClient.chooseAdapter(from: adapters, named: "hci0")
        }
        #expect(throws: BlueZError.noAdapter(requested: "hci7")) {
            try BlueZClient.chooseAdapter(from: adapters, named: "hci7")
        }
        #expect(throws: BlueZError.noAdapter(requested: nil)) { try BlueZClient.chooseAdapter(from: [], named: nil) }
        #expect(throws: BlueZError.adapterPoweredOff("hci0")) {
            try BlueZClient.chooseAdapter(from: [Self.adapter("hci0", powered: false)], named: nil)
        }
    }
}

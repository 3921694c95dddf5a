import BlueZ
import DBus
import DFUSimulator

/// The D-Bus objects of one GATT application (BlueZ `org.bluez.GattManager.rst`, "GATT Application"): an
/// object manager root, one `GattService1` per service and one `GattCharacteristic1` per role, plus the
/// `LEAdvertisement1` registered with it.
///
/// Each registration gets fresh paths (`…/app3/service0/char1`), so that objects of an application being
/// unregistered never answer for the one replacing it.
struct GATTDatabase: Sendable, Equatable {
    /// A characteristic object.
    struct Characteristic: Sendable, Equatable {
        let path: String
        let role: CharacteristicRole
        let servicePath: String
    }

    /// A primary service object.
    struct Service: Sendable, Equatable {
        let path: String
        let uuid: String
        let characteristics: [Characteristic]
    }

    /// The number of the registration (1 for the first).
    let generation: Int
    /// The object manager root, the path given to `RegisterApplication`.
    let root: String
    /// The advertisement's path, given to `RegisterAdvertisement`.
    let advertisementPath: String
    /// The services, in path order.
    let services: [Service]
    /// How the device advertises with this database.
    let advertisement: Advertisement

    /// The root under which every object of the simulator lives.
    static let basePath = "/org/nrfloader/simulator"

    /// Lays out the database for `roles`: one service per service UUID, characteristics sorted by UUID.
    init(generation: Int, roles: Set<CharacteristicRole>, advertisement: Advertisement) {
        self.generation = generation
        self.advertisement = advertisement
        root = "\(Self.basePath)/app\(generation)"
        advertisementPath = "\(Self.basePath)/advertisement\(generation)"
        var byService: [String: [CharacteristicRole]] = [:]
        for role in roles { byService[role.serviceUUID, default: []].append(role) }
        let root = self.root
        services = byService.keys.sorted().enumerated().map { index, uuid in
            let servicePath = "\(root)/service\(index)"
            let roles = (byService[uuid] ?? []).sorted { $0.uuid < $1.uuid }
            return Service(
                path: servicePath, uuid: uuid,
                characteristics: roles.enumerated().map { index, role in
                    Characteristic(path: "\(servicePath)/char\(index)", role: role, servicePath: servicePath)
                })
        }
    }

    /// Every characteristic, in path order.
    var characteristics: [Characteristic] { services.flatMap(\.characteristics) }

    /// The roles, in path order.
    var roles: [CharacteristicRole] { characteristics.map(\.role) }

    /// The advertised service UUIDs, upper case.
    var serviceUUIDs: [String] { services.map(\.uuid) }

    /// Whether there is anything to register with `GattManager1` (bluetoothd refuses an application without
    /// services: "No valid service object found").
    var isEmpty: Bool { services.isEmpty }

    /// The characteristic of `role`, if the database has one.
    func characteristic(_ role: CharacteristicRole) -> Characteristic? {
        characteristics.first { $0.role == role }
    }

    /// Every object to export, root first, then the advertisement.
    var objects: [(path: String, object: ExportedObject)] {
        var objects: [(path: String, object: ExportedObject)] = [(root, .root(self))]
        for service in services {
            objects.append((service.path, .service(service)))
            for characteristic in service.characteristics {
                objects.append((characteristic.path, .characteristic(characteristic)))
            }
        }
        objects.append((advertisementPath, .advertisement(self)))
        return objects
    }
}

/// What an exported path is.
enum ExportedObject: Sendable {
    /// The application root (`org.freedesktop.DBus.ObjectManager`).
    case root(GATTDatabase)
    /// A `GattService1`.
    case service(GATTDatabase.Service)
    /// A `GattCharacteristic1`.
    case characteristic(GATTDatabase.Characteristic)
    /// The `LEAdvertisement1` of the database.
    case advertisement(GATTDatabase)
}

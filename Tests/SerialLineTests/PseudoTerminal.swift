import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pseudo-terminal pair: the test holds the master side, the code under test opens ``path``, the slave.
final class PseudoTerminal {
    let master: Int32
    let path: String
    private var isOpen = true

    /// Opens `/dev/ptmx` and unlocks the slave with the two generic Linux ioctls (asm-generic/ioctls.h), which is what
    /// posix_openpt, unlockpt and ptsname do: Glibc's Swift module does not import those.
    init() throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.master = master
        self.path = "/dev/pts/\(number)"
    }

    /// Sends bytes to the slave side.
    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// What the slave side wrote, waiting up to one second for `count` bytes.
    func receive(_ count: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while received.count < count {
            var request = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 1000) > 0 else { break }
            let read = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            guard read > 0 else { break }
            received += buffer.prefix(read)
        }
        return received
    }

    func close() {
        if isOpen { Glibc.close(master) }
        isOpen = false
    }

    deinit { close() }
}

/// A sysfs stand-in laid out as Linux lays out USB serial devices, and a device directory of symlinks to real
/// nodes (pseudo-terminals), so that a port found through sysfs can be opened.
struct FakeSysfs {
    let root: String
    var sysfs: String { root + "/sys" }
    var devices: String { root + "/dev" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("serialline-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/sys/class/tty", withIntermediateDirectories: true)
    }

    /// A USB device `usb` (`1-1`) with its ids and strings; `ttyUSB` places the tty one level below the interface,
    /// as usb-serial adapters do.
    func plug(
        _ name: String, usb: String, vendor: String, product: String, serial: String?, productName: String? = nil,
        ttyUSB: Bool = false, node: String? = nil
    ) throws {
        let device = sysfs + "/devices/pci0000:00/usb1/" + usb
        var interface = device + "/" + usb + ":1.0"
        if ttyUSB { interface += "/" + name }
        try FileManager.default.createDirectory(atPath: interface, withIntermediateDirectories: true)
        try Data(vendor.utf8 + [0x0A]).write(to: URL(fileURLWithPath: device + "/idVendor"))
        try Data(product.utf8 + [0x0A]).write(to: URL(fileURLWithPath: device + "/idProduct"))
        if let serial { try Data(serial.utf8 + [0x0A]).write(to: URL(fileURLWithPath: device + "/serial")) }
        if let productName {
            try Data(productName.utf8 + [0x0A]).write(to: URL(fileURLWithPath: device + "/product"))
        }
        try tty(name, device: interface, node: node)
    }

    /// A tty entry whose device is `device`: any folder, such as a platform UART without USB ids.
    func tty(_ name: String, device: String, node: String? = nil) throws {
        let entry = sysfs + "/class/tty/" + name
        try FileManager.default.createDirectory(atPath: entry, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: entry + "/device", withDestinationPath: device)
        if let node {
            try FileManager.default.createSymbolicLink(atPath: devices + "/" + name, withDestinationPath: node)
        }
    }

    /// Removes the tty entry and its node: the device left the bus.
    func unplug(_ name: String) {
        try? FileManager.default.removeItem(atPath: sysfs + "/class/tty/" + name)
        try? FileManager.default.removeItem(atPath: devices + "/" + name)
    }

    /// Changes a USB device's serial number (another board in the same socket).
    func setSerial(_ serial: String, usb: String) throws {
        try Data(serial.utf8 + [0x0A]).write(
            to: URL(fileURLWithPath: sysfs + "/devices/pci0000:00/usb1/" + usb + "/serial"))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

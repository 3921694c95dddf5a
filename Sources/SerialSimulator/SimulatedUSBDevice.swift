#if canImport(Glibc)
    import Glibc
#endif

/// The simulated bootloader as a USB CDC device in a sysfs tree of its own, laid out as Linux lays out
/// `/sys/class/tty/ttyACM0/device` → the CDC interface of a USB device with `idVendor`, `idProduct`, `serial` and
/// `product`: what `scan --serial` and the serial transport read (with `NRFLOADER_SYSFS` pointing at the tree).
///
/// Plugging and unplugging adds and removes the tty entry; the USB device folder stays, with its current serial
/// number.
package struct SimulatedUSBDevice: Sendable {
    /// The tree's root (the stand-in for `/sys`), absolute.
    package let sysfsRoot: String
    /// USB vendor id.
    package let vendorID: UInt16
    /// USB product id.
    package let productID: UInt16
    /// The iProduct string.
    package let product: String
    /// The iSerialNumber string.
    package private(set) var serialNumber: String

    /// Describes a device; nothing is written until ``plug(as:)``.
    package init(sysfsRoot: String, vendorID: UInt16, productID: UInt16, product: String, serialNumber: String) {
        // The tty entries link to the device by absolute path, as in /sys.
        var directory = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if !sysfsRoot.hasPrefix("/"), getcwd(&directory, directory.count) != nil {
            self.sysfsRoot =
                String(decoding: directory.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/"
                + sysfsRoot
        } else {
            self.sysfsRoot = sysfsRoot
        }
        self.vendorID = vendorID
        self.productID = productID
        self.product = product
        self.serialNumber = serialNumber
    }

    private var deviceDirectory: String { sysfsRoot + "/devices/pci0000:00/usb1/1-1" }
    private var interfaceDirectory: String { deviceDirectory + "/1-1:1.0" }

    /// Writes the USB device and a tty entry `name` (`ttyACM0`) for it.
    ///
    /// - Throws: ``PseudoTerminalError`` naming the path that could not be written.
    package func plug(as name: String) throws(PseudoTerminalError) {
        try Self.makeDirectories(interfaceDirectory)
        try Self.write(Self.hex4(vendorID), to: deviceDirectory + "/idVendor")
        try Self.write(Self.hex4(productID), to: deviceDirectory + "/idProduct")
        try Self.write(product, to: deviceDirectory + "/product")
        try Self.write(serialNumber, to: deviceDirectory + "/serial")
        let entry = sysfsRoot + "/class/tty/" + name
        try Self.makeDirectories(entry)
        unlink(entry + "/device")
        guard symlink(interfaceDirectory, entry + "/device") == 0 else {
            throw PseudoTerminalError(description: "'\(entry)/device': cannot create symlink: \(Self.reason())")
        }
    }

    /// Removes the tty entry `name`: the device is gone from the bus.
    package func unplug(_ name: String) {
        let entry = sysfsRoot + "/class/tty/" + name
        unlink(entry + "/device")
        rmdir(entry)
    }

    /// The device comes back as another board: a new serial number at the next ``plug(as:)``.
    package mutating func replaceSerialNumber(with serialNumber: String) {
        self.serialNumber = serialNumber
    }

    private static func makeDirectories(_ path: String) throws(PseudoTerminalError) {
        var prefixes = [path]
        var rest = Substring(path)
        while let slash = rest.lastIndex(of: "/"), slash != path.startIndex {
            rest = path[..<slash]
            prefixes.append(String(rest))
        }
        for prefix in prefixes.reversed() where mkdir(prefix, 0o755) != 0 && errno != EEXIST {
            throw PseudoTerminalError(description: "'\(prefix)': cannot create folder: \(reason())")
        }
    }

    /// Writes `text` and a newline to a temporary file and renames it into place (a reader never sees half).
    private static func write(_ text: String, to path: String) throws(PseudoTerminalError) {
        let temporary = path + ".tmp"
        guard let file = fopen(temporary, "w") else {
            throw PseudoTerminalError(description: "'\(temporary)': cannot write: \(reason())")
        }
        fputs(text + "\n", file)
        fclose(file)
        guard rename(temporary, path) == 0 else {
            throw PseudoTerminalError(description: "'\(path)': cannot rename into place: \(reason())")
        }
    }

    private static func hex4(_ value: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<4).reversed().map { digits[Int(value >> (4 * $0)) & 0xF] })
    }

    private static func reason() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// A serial port backed by a USB device, as sysfs describes it (readable without root).
package struct USBSerialPort: Sendable, Equatable {
    /// The device node, `/dev/ttyACM0`.
    package var path: String
    /// USB vendor id.
    package var vendorID: UInt16
    /// USB product id.
    package var productID: UInt16
    /// The iSerialNumber string, when the device has one.
    package var serialNumber: String?
    /// The iProduct string, when the device has one.
    package var product: String?

    /// Creates a description.
    package init(path: String, vendorID: UInt16, productID: UInt16, serialNumber: String?, product: String?) {
        self.path = path
        self.vendorID = vendorID
        self.productID = productID
        self.serialNumber = serialNumber
        self.product = product
    }

    /// What the ids say the port is, or `nil` for a device that is not Nordic's or Adafruit's.
    ///
    /// 1915:521F is the Open DFU bootloader of the nRF52840 Dongle (nrfutil's `dfu_trigger.py` looks for the same
    /// pair); other 1915 products are SDK USB applications, which may offer the DFU trigger interface. 239A is
    /// Adafruit's vendor id: its bootloaders and its CircuitPython/Arduino applications (1200-baud touch).
    package var kind: Kind? {
        switch (vendorID, productID) {
        case (0x1915, 0x521F): .nordicBootloader
        case (0x1915, _): .nordicApplication
        case (0x239A, _): .adafruit
        case (0x1366, _): .seggerVirtualCOM
        default: nil
        }
    }

    /// The families ``USBSerialPort/kind`` tells apart.
    package enum Kind: String, Sendable {
        /// The nRF52840 Dongle's Open DFU bootloader: Secure DFU over USB CDC.
        case nordicBootloader = "nordic-bootloader"
        /// A Nordic SDK application with USB CDC (the DFU trigger interface may be there).
        case nordicApplication = "nordic-application"
        /// An Adafruit nRF52 board, bootloader or application (legacy serial DFU, 1200-baud touch).
        case adafruit = "adafruit"
        /// A J-Link's virtual COM port: the UART of a Nordic development kit.
        case seggerVirtualCOM = "segger-vcom"
    }
}

/// Lists USB serial ports from sysfs.
package struct USBSerialPorts: Sendable {
    /// The sysfs mount, `/sys` (another root lets tests describe devices that are not plugged in).
    package let sysfsRoot: String
    /// Where device nodes live, `/dev`.
    package let deviceRoot: String

    /// Creates a lister.
    package init(sysfsRoot: String = "/sys", deviceRoot: String = "/dev") {
        self.sysfsRoot = sysfsRoot
        self.deviceRoot = deviceRoot
    }

    /// Every tty whose device is (a function of) a USB device, sorted by path.
    package func all() -> [USBSerialPort] {
        let classDirectory = sysfsRoot + "/class/tty"
        var ports: [USBSerialPort] = []
        for name in Self.entries(of: classDirectory) {
            guard let device = Self.realPath(classDirectory + "/" + name + "/device") else { continue }
            // ttyACM: device is the CDC interface, its parent the USB device; ttyUSB: one level deeper.
            var directory = device
            for _ in 0..<3 {
                if let vendor = Self.hex(directory + "/idVendor"), let product = Self.hex(directory + "/idProduct") {
                    ports.append(
                        USBSerialPort(
                            path: deviceRoot + "/" + name, vendorID: vendor, productID: product,
                            serialNumber: Self.text(directory + "/serial"), product: Self.text(directory + "/product")))
                    break
                }
                directory = Self.parent(directory)
            }
        }
        return ports.sorted { $0.path < $1.path }
    }

    /// The Nordic, Adafruit and J-Link ports only.
    package func dfuCandidates() -> [USBSerialPort] {
        all().filter { $0.kind != nil }
    }

    /// The port of the device with this USB serial number now, if one is plugged in.
    package func port(serialNumber: String) -> USBSerialPort? {
        all().first { $0.serialNumber == serialNumber }
    }

    /// The USB description of the port at `path` (following a symlink such as /dev/serial/by-id/…).
    package func port(atPath path: String) -> USBSerialPort? {
        let ports = all()
        if let port = ports.first(where: { $0.path == path }) { return port }
        let resolved = Self.realPath(path) ?? path
        let name = resolved.split(separator: "/").last.map(String.init) ?? resolved
        return ports.first { $0.path.split(separator: "/").last.map(String.init) == name }
    }

    private static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func text(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        while bytes.count < 256 {
            let character = fgetc(file)
            if character == EOF || character == 0x0A { break }
            bytes.append(UInt8(truncatingIfNeeded: character))
        }
        let value = String(decoding: bytes, as: UTF8.self)
        return value.isEmpty ? nil : value
    }

    private static func hex(_ path: String) -> UInt16? {
        text(path).flatMap { UInt16($0, radix: 16) }
    }
}

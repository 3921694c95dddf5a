import SerialLine

/// A USB serial port that may lead to a Nordic bootloader: what `nrfloader scan --serial` lists.
public struct SerialPortInfo: Sendable, Equatable {
    /// What the USB ids say a port is.
    public enum Kind: String, Sendable, CaseIterable {
        /// The nRF52840 Dongle's Open DFU bootloader: Secure DFU over USB CDC (1915:521F).
        case nordicBootloader = "nordic-bootloader"
        /// A Nordic SDK application with USB CDC, which may offer the DFU trigger interface (another 1915 product).
        case nordicApplication = "nordic-application"
        /// An Adafruit nRF52 board, bootloader or application: legacy serial DFU, 1200-baud touch (vendor 239A).
        case adafruit
        /// A J-Link's virtual COM port: the UART of a Nordic development kit.
        case seggerVirtualCOM = "segger-vcom"
    }

    /// The device node, such as `/dev/ttyACM0`: what `UpdateTarget.serial(_:options:)` takes.
    public let path: String
    /// The USB vendor id.
    public let vendorID: UInt16
    /// The USB product id.
    public let productID: UInt16
    /// What the ids say the port is, or `nil` for a device that is none of the ``Kind``s.
    public let kind: Kind?
    /// The device's iSerialNumber string, if it has one.
    ///
    /// It is the device's text: escape it before printing it on a terminal.
    public let serialNumber: String?
    /// The device's iProduct string, if it has one.
    ///
    /// It is the device's text: escape it before printing it on a terminal.
    public let product: String?

    init(_ port: USBSerialPort) {
        path = port.path
        vendorID = port.vendorID
        productID = port.productID
        kind = port.kind.map { kind in
            switch kind {
            case .nordicBootloader: .nordicBootloader
            case .nordicApplication: .nordicApplication
            case .adafruit: .adafruit
            case .seggerVirtualCOM: .seggerVirtualCOM
            }
        }
        serialNumber = port.serialNumber
        product = port.product
    }
}

/// Lists the USB serial ports of this machine that may lead to a Nordic bootloader, from sysfs (no root needed).
///
/// `NRFLOADER_SYSFS` and `NRFLOADER_DEV` move the roots it reads (`/sys`, `/dev`), as tests do.
public struct SerialScanner: Sendable {
    /// A scanner of this machine's ports.
    public init() {}

    /// The ports whose USB ids are Nordic's, Adafruit's or a J-Link's, in the order of their device nodes.
    ///
    /// - Returns: The ports; empty when none is plugged in.
    public func ports() -> [SerialPortInfo] {
        SerialPorts.lister.dfuCandidates().map(SerialPortInfo.init)
    }
}

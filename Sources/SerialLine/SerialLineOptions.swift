/// How to reach a device on a serial port.
///
/// The path, the line settings, and where to look for the device again after a USB CDC device re-enumerates. Every
/// protocol over a serial line (nRF5 serial DFU, SMP over the console) opens its port with these.
package struct SerialLineOptions: Sendable, Equatable {
    /// The device node, or a symlink to it.
    package var path: String
    /// Line speed (the USB CDC devices ignore it).
    package var baudRate = 115_200
    /// RTS/CTS hardware flow control (the SDK's UART bootloader enables it).
    package var hardwareFlowControl = false
    /// Where sysfs is, to find a re-enumerated USB device by serial number.
    package var sysfsRoot = "/sys"
    /// Where the device nodes sysfs names are (`/dev`).
    package var deviceRoot = "/dev"

    /// Creates options for the port at `path`.
    ///
    /// - Parameter path: The device node.
    package init(path: String) {
        self.path = path
    }

    /// The line settings the options ask for.
    package var settings: SerialPort.Settings {
        SerialPort.Settings(baudRate: baudRate, hardwareFlowControl: hardwareFlowControl)
    }
}

extension SerialPort {
    /// Checks that the port can be opened (and is not busy or forbidden), then closes it.
    ///
    /// - Parameter options: The port.
    /// - Throws: ``SerialPortError``.
    package static func checkAccess(_ options: SerialLineOptions) throws(SerialPortError) {
        let port = try SerialPort(path: options.path, settings: options.settings)
        port.close()
    }
}

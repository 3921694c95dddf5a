/// Finds the device again when its port comes back: a USB CDC device that resets (between the parts of an update)
/// disappears and re-enumerates, possibly under another name (`/dev/ttyACM0` → `/dev/ttyACM1`).
///
/// The first open records the USB serial number sysfs gives for the port. From then on only a port with that
/// serial number is opened: the device's new name if it moved, and never a port that another board now holds.
/// A port sysfs knows nothing about (a UART adapter without a serial number, a pseudo-terminal) is reopened by
/// its path.
package struct SerialPortLocator: Sendable {
    /// Why no port was opened.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The port (or the device with the recorded serial number) did not appear before the deadline.
        case didNotAppear(String)
        /// Another device sits where the device was: it is not opened.
        case otherDevice(String)
        /// The port exists but cannot be opened.
        case port(SerialPortError)

        package var description: String {
            switch self {
            case .didNotAppear(let message), .otherDevice(let message): message
            case .port(let error): error.description
            }
        }
    }

    /// The path opened last (the one given, at first).
    package private(set) var path: String
    /// The USB serial number of the device, once a port with one was opened.
    private(set) var usbSerialNumber: String?
    /// The serial numbers of the other USB serial devices plugged in then: boards that were there all along.
    private var otherSerialNumbers: Set<String> = []
    private let settings: SerialPort.Settings
    private let lister: USBSerialPorts

    /// Creates a locator for the port the options name.
    package init(_ options: SerialLineOptions) {
        path = options.path
        settings = options.settings
        lister = USBSerialPorts(sysfsRoot: options.sysfsRoot, deviceRoot: options.deviceRoot)
    }

    /// Opens the device's port, waiting until `deadline` for it to appear.
    ///
    /// - Throws: ``Failure``.
    package mutating func open(until deadline: ContinuousClock.Instant) async throws(Failure) -> SerialPort {
        let clock = ContinuousClock()
        while true {
            var candidate: String? = path
            if let serial = usbSerialNumber {
                candidate = lister.port(serialNumber: serial)?.path
                if candidate == nil, let other = lister.port(atPath: path), let otherSerial = other.serialNumber {
                    throw .otherDevice(
                        "'\(path)' is now another device (usb serial number '\(otherSerial)', not '\(serial)'): "
                            + "the device being updated did not come back; not updating another board")
                }
            }
            if let candidate {
                do {
                    let port = try SerialPort(path: candidate, settings: settings)
                    if usbSerialNumber == nil, let serial = lister.port(atPath: candidate)?.serialNumber {
                        usbSerialNumber = serial
                        otherSerialNumbers = Set(lister.all().compactMap(\.serialNumber)).subtracting([serial])
                    }
                    path = candidate
                    return port
                } catch .notFound {
                    // Gone again (still re-enumerating): wait below.
                } catch {
                    throw .port(error)
                }
            }
            if clock.now >= deadline || Task.isCancelled { throw missing() }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The failure at the deadline: nothing came back, or another board appeared instead.
    private func missing() -> Failure {
        guard let serial = usbSerialNumber else { return .didNotAppear("serial port '\(path)' did not appear") }
        let message = "the device with usb serial number '\(serial)' (last at '\(path)') did not come back"
        let newcomers = lister.dfuCandidates().filter { port in
            port.serialNumber.map { !otherSerialNumbers.contains($0) } ?? true
        }
        guard !newcomers.isEmpty else { return .didNotAppear(message) }
        let described = newcomers.map { "'\($0.path)' (usb serial number '\($0.serialNumber ?? "none")')" }
        return .otherDevice(
            message + "; not updating another board that appeared: " + described.joined(separator: ", "))
    }
}

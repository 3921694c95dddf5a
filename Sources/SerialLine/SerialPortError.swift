/// Why a serial port could not be used, sorted by what the user can do about it.
package enum SerialPortError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not exist (no device plugged in, or a typo).
    case notFound(path: String)
    /// Another program holds the port (a terminal, ModemManager, another upload).
    case busy(path: String)
    /// The user may not open the port; on Debian-family systems the fix is the dialout group.
    case permissionDenied(path: String)
    /// The path is not a terminal device.
    case notATerminal(path: String)
    /// The line speed is not one the system can set.
    case unsupportedBaudRate(Int)
    /// The port went away while it was open (USB unplugged, device reset and re-enumerated).
    case vanished(path: String, reason: String)
    /// Any other system error, with the call that failed.
    case system(path: String, call: String, reason: String)

    package var description: String {
        switch self {
        case .notFound(let path): "serial port '\(path)': no such device"
        case .busy(let path): "serial port '\(path)': busy (another program has it open)"
        case .permissionDenied(let path):
            "serial port '\(path)': permission denied (add yourself to the dialout group: "
                + "sudo usermod -aG dialout $USER, then log in again)"
        case .notATerminal(let path): "serial port '\(path)': not a terminal device"
        case .unsupportedBaudRate(let rate): "baud rate \(rate) is not supported"
        case .vanished(let path, let reason): "serial port '\(path)' vanished: \(reason)"
        case .system(let path, let call, let reason): "serial port '\(path)': \(call) failed: \(reason)"
        }
    }
}

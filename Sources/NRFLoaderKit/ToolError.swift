/// Failures of the command-line shell itself: files it could not read or write.
///
/// Library modules bring their own error enums; ``ExitStatus/of(_:)`` maps each to a status.
package enum ToolError: Error, Sendable, CustomStringConvertible {
    /// The input path does not exist.
    case inputMissing(path: String)
    /// The input exists but cannot be opened or read.
    case inputUnreadable(path: String, reason: String)
    /// Reading failed after the input was opened.
    case readFailed(path: String, reason: String)
    /// The output file (or its temporary sibling) cannot be created.
    case cannotCreateOutput(path: String, reason: String)
    /// Writing or renaming the output failed.
    case writeFailed(path: String, reason: String)
    /// The input holds no data where the command needs some.
    case emptyBinary(path: String)
    /// No device advertised the name `--name` asked for.
    case deviceNameNotFound(name: String, adapter: String, seconds: Int)
    /// More than one device advertised the name `--name` asked for: each `ADDRESS (RSSI)`.
    case ambiguousDeviceName(name: String, adapter: String, devices: [String])
    /// The input is an nRF5 DFU image and the target speaks SMP only (`sim:smp`).
    case dfuInputForSMPTarget(input: String, target: String)

    package var description: String {
        switch self {
        case .inputMissing(let path): "'\(path)': no such file"
        case .inputUnreadable(let path, let reason): "'\(path)': cannot read: \(reason)"
        case .readFailed(let path, let reason): "'\(path)': read failed: \(reason)"
        case .cannotCreateOutput(let path, let reason): "'\(path)': cannot create output: \(reason)"
        case .writeFailed(let path, let reason): "'\(path)': write failed: \(reason)"
        case .emptyBinary(let path): "'\(path)': binary input is empty"
        case .deviceNameNotFound(let name, let adapter, let seconds):
            "no device advertising the name '\(name)' seen on \(adapter) in \(seconds) s (--wait waits longer)"
        case .ambiguousDeviceName(let name, let adapter, let devices):
            "\(devices.count) devices advertise the name '\(name)' on \(adapter): \(devices.joined(separator: ", ")); "
                + "choose one with --target ADDRESS"
        case .dfuInputForSMPTarget(let input, let target):
            "'\(input)' is an nRF5 DFU image, and \(target) takes MCUboot images over SMP (for nRF5 DFU use --target "
                + "sim, sim:legacy or sim:buttonless)"
        }
    }

    /// The reason alone, without the path (for messages that name the path themselves).
    package var reason: String {
        switch self {
        case .inputMissing: "no such file"
        case .inputUnreadable(_, let reason), .readFailed(_, let reason), .cannotCreateOutput(_, let reason),
            .writeFailed(_, let reason):
            reason
        case .emptyBinary: "binary input is empty"
        case .deviceNameNotFound: "device not found"
        case .ambiguousDeviceName: "ambiguous device name"
        case .dfuInputForSMPTarget: "not an MCUboot update"
        }
    }

    package var exitStatus: ExitStatus {
        switch self {
        case .inputMissing, .inputUnreadable: .noInput
        case .readFailed, .writeFailed: .ioError
        case .cannotCreateOutput: .cannotCreate
        case .emptyBinary: .dataError
        case .deviceNameNotFound: .unavailable
        case .ambiguousDeviceName, .dfuInputForSMPTarget: .usage
        }
    }
}

import DFUSimulator
import DeviceLink
import SMPSimulator

/// Why a simulated device cannot inject a fault as `--sim-fault` spells it.
public enum SimulatedFaultProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a fault: the parser's message, such as `unknown fault kind 'x' (…)`.
    case malformed(String)
    /// The fault exists, but this kind of device does not simulate it: why, with the faults it does simulate.
    case unsupported(String)

    /// The message.
    public var description: String {
        switch self {
        case .malformed(let message), .unsupported(let message): message
        }
    }
}

extension SimulatedDeviceKind {
    /// Why a device of this kind cannot inject the fault `text`, or `nil` when it can.
    ///
    /// ``SimulatedTarget/init(_:options:)`` refuses such a fault; this names the problem for one text, so that a
    /// command line can say which of its options is wrong.
    ///
    /// - Parameter text: One fault, as ``SimulatedDeviceOptions/faults`` holds it (`drop-notification@1`, `stall@1`).
    /// - Returns: The problem, or `nil`.
    public func faultProblem(_ text: String) -> SimulatedFaultProblem? {
        let fault: Fault
        do { fault = try FaultSpecification.parse(text) } catch { return .malformed("\(error)") }
        guard self == .smp, let reason = SimulatedSMPTransport.unsupportedReason(fault) else { return nil }
        return .unsupported(reason)
    }
}

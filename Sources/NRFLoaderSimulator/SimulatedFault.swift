package import DFUSimulator
package import DeviceLink
public import NRFLoaderKit
import SMPSimulator

/// A fault a simulated device injects, as `--sim-fault` spells it: `disconnect@6000`, `drop-packet@40`,
/// `drop-packet~0.01`, `respond@execute:0x0A`, ….
public struct SimulatedFault: Sendable, Equatable, CustomStringConvertible {
    /// The text it was parsed from.
    public let description: String
    /// The engine's fault.
    package let fault: Fault

    /// Parses a fault.
    ///
    /// - Parameter text: The fault, as `--sim-fault` takes it.
    /// - Throws: `UpdateError` with `ExitStatus/usage`, whose message says what is wrong with `text`.
    public init(parsing text: String) throws(UpdateError) {
        do {
            fault = try FaultSpecification.parse(text)
        } catch {
            throw UpdateError(error, status: .usage)
        }
        description = text
    }

    /// Whether a device of `kind` can inject this fault: an nRF5 device injects every one; the SMP device those of
    /// its link (dropped packets and notifications, duplicated notifications, disconnects, reboots, stalls, forced
    /// answers, a capped MTU).
    ///
    /// - Parameter kind: The device.
    /// - Returns: Whether the fault is simulated for it.
    public func isSimulated(by kind: SimulatedDeviceKind) -> Bool {
        kind != .smp || SimulatedSMPTransport.unsupportedReason(fault) == nil
    }
}

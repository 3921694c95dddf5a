package import DeviceLink
import SMP

/// A link to one SMP server: BLE (the SMP characteristic), a serial console, or the simulator.
///
/// The transport moves whole frames: it splits a request into writes of the link's size and reassembles answers by
/// the header's length (`SMPFrame.totalLength(ofFrameStartingWith:)`). It makes no protocol decision.
///
/// Contract, as `DFUTargetAdapter`'s `GATTTransport`: one task calls the methods one at a time; link loss comes out
/// of `nextEvent(until:)` exactly once as `SMPTransportEvent/disconnected(reason:)`, also after `disconnect()`;
/// a send that fails because the link dropped throws `LinkError/linkLost(_:)`.
package protocol SMPTransport: Sendable {
    /// The clock the deadlines are on.
    associatedtype SessionClock: Clock where SessionClock.Duration == Duration

    /// The transport's clock.
    var clock: SessionClock { get }

    /// Connects (again).
    ///
    /// - Parameter deadline: When to give up.
    /// - Returns: The ATT MTU, or for a stream transport the largest frame it carries plus 3.
    /// - Throws: `LinkError`.
    func connect(deadline: SessionClock.Instant) async throws(LinkError) -> Int

    /// Sends one request frame.
    ///
    /// - Parameter frame: The frame.
    /// - Throws: `LinkError`.
    func send(_ frame: [UInt8]) async throws(LinkError)

    /// Drops the link; the loss then comes out of `nextEvent(until:)`.
    func disconnect() async

    /// Waits for the next answer frame or link loss.
    ///
    /// - Parameter deadline: When to stop waiting.
    /// - Returns: The event, or `nil` at the deadline or when the task was cancelled.
    /// - Throws: `LinkError` when the transport itself broke.
    func nextEvent(until deadline: SessionClock.Instant) async throws(LinkError) -> SMPTransportEvent?
}

/// Something the device did on its own.
package enum SMPTransportEvent: Sendable, Equatable {
    /// A complete answer frame.
    case frame([UInt8])
    /// The link is down.
    case disconnected(reason: String)
    /// A line of detail from the link itself (a serial console's log line, a dropped packet), already escaped;
    /// nothing for the machine.
    case log(String)
}

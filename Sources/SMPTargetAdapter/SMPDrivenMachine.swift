package import DeviceLink
import SMP

/// An SMP machine as `MachineDriver` runs it: `SMPUploader` and `SMPExchange` take the same inputs, so the link's
/// completions, frames and failures reach both the same way.
package protocol SMPDrivenMachine: DrivenMachine
where Operation == SMPLinkOperation, Completion == Int, Message == [UInt8] {
    /// The link connected with this MTU.
    mutating func connected(mtu: Int, at now: Duration) -> [Action]
    /// A whole answer frame arrived.
    mutating func receive(_ bytes: [UInt8], at now: Duration) -> [Action]
    /// The link dropped.
    mutating func transportDisconnected(at now: Duration) -> [Action]
    /// A link operation failed.
    mutating func transportFailed(_ failure: LinkError, at now: Duration) -> [Action]
}

extension SMPDrivenMachine {
    /// An SMP device stays up after the machine is done: the driver drops the link.
    package static var disconnectsWhenFinished: Bool { true }

    package static func isConnection(_ operation: SMPLinkOperation) -> Bool { operation == .connect }

    package mutating func completed(_ mtu: Int, at now: Duration) -> [Action] { connected(mtu: mtu, at: now) }

    package mutating func failed(_ error: LinkError, during operation: SMPLinkOperation?, at now: Duration) -> [Action]
    {
        transportFailed(error, at: now)
    }

    package mutating func received(_ message: [UInt8], at now: Duration) -> [Action] { receive(message, at: now) }

    package mutating func linkLost(at now: Duration) -> [Action] { transportDisconnected(at: now) }
}

/// What an SMP machine asks of the link.
package enum SMPLinkOperation: Sendable, Equatable {
    /// Connect (again); completes with the ATT MTU, or for a stream the largest frame plus 3.
    case connect
    /// Send one request frame.
    case send([UInt8])
}

/// An `SMPTransport` as the link `MachineDriver` runs an SMP machine on.
struct SMPDriverLink<Transport: SMPTransport>: DriverLink {
    let transport: Transport

    var clock: Transport.SessionClock { transport.clock }

    func perform(_ operation: SMPLinkOperation, connectionDeadline: Transport.SessionClock.Instant)
        async throws(LinkError) -> Int?
    {
        switch operation {
        case .connect: return try await transport.connect(deadline: connectionDeadline)
        case .send(let frame):
            try await transport.send(frame)
            return nil
        }
    }

    func disconnect() async {
        await transport.disconnect()
    }

    func nextEvent(until deadline: Transport.SessionClock.Instant) async throws(LinkError) -> LinkEvent<[UInt8]>? {
        switch try await transport.nextEvent(until: deadline) {
        case .frame(let bytes)?: .message(bytes)
        case .disconnected(let reason)?: .disconnected(reason: reason)
        case .log(let line)?: .log(line)
        case nil: nil
        }
    }
}

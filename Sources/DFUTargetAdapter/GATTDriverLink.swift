package import DFUController
package import DeviceLink

/// A `GATTTransport` as the link `MachineDriver` runs `DFUController` on: GATT operations in, notifications and
/// link loss out.
package struct GATTDriverLink<Transport: GATTTransport>: DriverLink {
    /// The transport.
    package let transport: Transport

    /// Creates the link.
    ///
    /// - Parameter transport: The transport.
    package init(transport: Transport) {
        self.transport = transport
    }

    /// The transport's clock.
    package var clock: Transport.SessionClock { transport.clock }

    package func perform(_ operation: GATTOperation, connectionDeadline: Transport.SessionClock.Instant)
        async throws(LinkError) -> GATTCompletion?
    {
        switch operation {
        case .connect(let request):
            return .connected(try await transport.connect(request, deadline: connectionDeadline))
        case .enableNotifications(let characteristic):
            try await transport.enableNotifications(characteristic)
            return .written
        case .write(let characteristic, let value):
            try await transport.write(characteristic, value)
            return .written
        case .writePackets(let characteristic, let packets):
            try await transport.writeWithoutResponse(characteristic, packets)
            return nil
        case .read(let characteristic):
            return .read(try await transport.read(characteristic))
        }
    }

    package func disconnect() async {
        await transport.disconnect()
    }

    package func nextEvent(until deadline: Transport.SessionClock.Instant) async throws(LinkError)
        -> LinkEvent<GATTNotification>?
    {
        switch try await transport.nextEvent(until: deadline) {
        case .notification(let characteristic, let value)?:
            .message(GATTNotification(characteristic: characteristic, value: value))
        case .disconnected(let reason)?: .disconnected(reason: reason)
        case nil: nil
        }
    }
}

/// A GATT operation the controller asks for.
package enum GATTOperation: Sendable, Equatable {
    /// Find and connect to the device.
    case connect(ConnectionRequest)
    /// Enable notifications on a characteristic.
    case enableNotifications(DFUCharacteristic)
    /// Write with response.
    case write(DFUCharacteristic, [UInt8])
    /// Write without response.
    case writePackets(DFUCharacteristic, [[UInt8]])
    /// Read.
    case read(DFUCharacteristic)

    /// The operation as a failure names it.
    var transportOperation: TransportOperation {
        switch self {
        case .enableNotifications(let characteristic): .enableNotifications(characteristic)
        case .write(let characteristic, _), .writePackets(let characteristic, _): .write(characteristic)
        case .read(let characteristic): .read(characteristic)
        case .connect: .connect
        }
    }
}

/// What a completed GATT operation tells the controller.
package enum GATTCompletion: Sendable, Equatable {
    /// Connected.
    case connected(GATTConnection)
    /// A write or a subscription completed.
    case written
    /// A read gave this value.
    case read([UInt8])
}

/// A notification or indication.
package struct GATTNotification: Sendable, Equatable {
    /// Where it came from.
    package var characteristic: DFUCharacteristic
    /// Its value.
    package var value: [UInt8]
}

extension DFUController: DrivenMachine {
    package static var connectionTimer: DFUTimer { .connection }
    package static var cancelled: DFUError { .cancelled }
    /// The target resets on its own after the last part, and the link drops by itself.
    package static var disconnectsWhenFinished: Bool { false }

    package static func step(_ action: DFUAction) -> DriverStep<GATTOperation, DFUTimer, DFUSummary, DFUError> {
        switch action {
        case .connect(let request): .perform(.connect(request))
        case .enableNotifications(let characteristic): .perform(.enableNotifications(characteristic))
        case .write(let characteristic, let value): .perform(.write(characteristic, value))
        case .writePackets(let characteristic, let packets): .perform(.writePackets(characteristic, packets))
        case .read(let characteristic): .perform(.read(characteristic))
        case .startTimer(let timer, let deadline): .startTimer(timer, deadline: deadline)
        case .cancelTimer(let timer): .cancelTimer(timer)
        case .disconnect: .disconnect
        case .progress, .log: .report
        case .finish(let summary): .finish(summary)
        case .fail(let error): .fail(error)
        }
    }

    package static func isConnection(_ operation: GATTOperation) -> Bool {
        if case .connect = operation { true } else { false }
    }

    package mutating func completed(_ completion: GATTCompletion, at now: Duration) -> [DFUAction] {
        switch completion {
        case .connected(let connection):
            connected(
                mtu: connection.mtu, characteristics: connection.characteristics, address: connection.address, at: now)
        case .written: writeCompleted(at: now)
        case .read(let value): readCompleted(value, at: now)
        }
    }

    package mutating func failed(_ error: LinkError, during operation: GATTOperation?, at now: Duration)
        -> [DFUAction]
    {
        guard let operation else { return transportFailed(TransportFailure(operation: .link, error), at: now) }
        // A write that failed because the link dropped: the loss itself comes as the link's event next.
        if error.kind == .linkLost, !Self.isConnection(operation) { return [] }
        return transportFailed(TransportFailure(operation: operation.transportOperation, error), at: now)
    }

    package mutating func received(_ message: GATTNotification, at now: Duration) -> [DFUAction] {
        receive(notification: message.value, from: message.characteristic, at: now)
    }

    package mutating func linkLost(at now: Duration) -> [DFUAction] {
        transportDisconnected(at: now)
    }
}

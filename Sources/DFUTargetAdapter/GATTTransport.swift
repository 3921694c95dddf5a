package import DFUController
package import DeviceLink

/// A Bluetooth LE central's view of one DFU target: what `DFUTargetAdapter` needs from BlueZ, and what the
/// simulator provides in memory.
///
/// The transport does no protocol work: it finds and connects to a device, discovers the DFU characteristics,
/// writes, reads and delivers notifications. Every decision is the controller's.
///
/// ## Contract
/// - One task (the adapter's) calls the methods, one at a time.
/// - Notifications and link loss that happen at any moment are queued and handed out, in order, by
///   `nextEvent(until:)`; link loss is reported there exactly once as `GATTEvent.disconnected(reason:)`, also
///   after `disconnect()`. An operation that fails because the link dropped throws
///   `LinkError/linkLost(_:)`.
/// - Only `nextEvent(until:)` reacts to task cancellation (it returns `nil` early). Every other operation runs to
///   its end or its own error, so that the clean-up writes a cancelled update needs (Abort, Reset) still go out.
/// - A new `connect(_:deadline:)` rediscovers services: a GATT cache is never trusted across a device reset.
package protocol GATTTransport: Sendable {
    /// The clock the transport's deadlines are measured on: `ContinuousClock` for BlueZ, virtual time for the
    /// simulator.
    associatedtype SessionClock: Clock where SessionClock.Duration == Duration

    /// The transport's clock.
    var clock: SessionClock { get }

    /// Finds the device, connects, discovers its services and subscribes nothing yet.
    ///
    /// - Parameters:
    ///   - request: The address to look for, or the alternative address, or the advertised name.
    ///   - deadline: When to give up, retries included.
    /// - Returns: The connection's ATT MTU and the DFU characteristics found.
    /// - Throws: `LinkError`.
    func connect(_ request: ConnectionRequest, deadline: SessionClock.Instant) async throws(LinkError)
        -> GATTConnection

    /// Enables notifications (or indications) on a characteristic, waiting for the CCCD write to complete.
    ///
    /// - Parameter characteristic: The characteristic.
    /// - Throws: `LinkError`.
    func enableNotifications(_ characteristic: DFUCharacteristic) async throws(LinkError)

    /// Writes a value with response (ATT Write Request) and waits for the response.
    ///
    /// - Parameters:
    ///   - characteristic: The characteristic.
    ///   - value: The value, at most ATT MTU − 3 bytes.
    /// - Throws: `LinkError`.
    func write(_ characteristic: DFUCharacteristic, _ value: [UInt8]) async throws(LinkError)

    /// Writes values without response (ATT Write Commands), in order; returns when they are handed to the link.
    ///
    /// A later `write(_:_:)` must not overtake packets still queued here (testrig.md: the control point write
    /// that asks for a checksum must reach the device after the data it covers).
    ///
    /// - Parameters:
    ///   - characteristic: The characteristic.
    ///   - packets: The values, each at most ATT MTU − 3 bytes.
    /// - Throws: `LinkError`.
    func writeWithoutResponse(_ characteristic: DFUCharacteristic, _ packets: [[UInt8]])
        async throws(LinkError)

    /// Reads a characteristic's value.
    ///
    /// - Parameter characteristic: The characteristic.
    /// - Returns: The value.
    /// - Throws: `LinkError`.
    func read(_ characteristic: DFUCharacteristic) async throws(LinkError) -> [UInt8]

    /// Drops the connection; the link loss then comes out of `nextEvent(until:)`.
    func disconnect() async

    /// Waits for the next notification or link loss.
    ///
    /// - Parameter deadline: When to stop waiting.
    /// - Returns: The event, or `nil` when the deadline passed (or the task was cancelled) first.
    /// - Throws: `LinkError` when the transport itself broke (not for link loss, which is an event).
    func nextEvent(until deadline: SessionClock.Instant) async throws(LinkError) -> GATTEvent?
}

/// A connection as the transport found it.
package struct GATTConnection: Sendable, Equatable {
    /// The ATT MTU in effect (23 when nothing was negotiated).
    package var mtu: Int
    /// The DFU characteristics the device offers.
    package var characteristics: Set<DFUCharacteristic>
    /// The address the transport connected to (the alternative one, after a buttonless jump).
    package var address: BluetoothAddress

    /// Creates a connection description.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU.
    ///   - characteristics: The DFU characteristics found.
    ///   - address: The connected device's address.
    package init(mtu: Int, characteristics: Set<DFUCharacteristic>, address: BluetoothAddress) {
        self.mtu = mtu
        self.characteristics = characteristics
        self.address = address
    }
}

/// Something the device did on its own.
package enum GATTEvent: Sendable, Equatable {
    /// A notification or indication.
    case notification(DFUCharacteristic, [UInt8])
    /// The link is down; `reason` is the transport's wording.
    case disconnected(reason: String)
}

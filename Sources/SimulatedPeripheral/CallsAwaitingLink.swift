import DBus

/// Method calls that need a connected central (`StartNotify`, `AcquireNotify`, `AcquireWrite`) and arrived before
/// BlueZ's `Connected` signal reached the simulated device.
///
/// BlueZ makes such a call only for a connected central (it writes the CCCD, or hands out a socket, for the link),
/// but the signal reaches a simulator on another path than the call, and bluezoo's calls name no device to adopt
/// the link from. A held call is answered once the link is taken, or refused after ``grace``.
struct CallsAwaitingLink<Context> {
    /// How long a call waits for the signal: generous, since on a loaded machine it can take seconds to arrive.
    static var grace: Duration { .seconds(10) }

    private var held: [(call: DBusMethodCall, context: Context, deadline: Duration)] = []

    /// Holds `call` from `time` (the device's clock) on.
    mutating func hold(_ call: DBusMethodCall, _ context: Context, at time: Duration) {
        held.append((call, context, time + Self.grace))
    }

    /// The earliest deadline of a held call.
    var nextDeadline: Duration? { held.map(\.deadline).min() }

    /// Every held call, oldest first; none are held afterwards.
    mutating func takeAll() -> [(call: DBusMethodCall, context: Context)] {
        defer { held.removeAll() }
        return held.map { ($0.call, $0.context) }
    }

    /// Refuses every held call whose deadline has passed at `time`, or every one when `time` is `nil` (the link
    /// went before they could be answered), with BlueZ's `NotConnected`.
    mutating func refuse(dueAt time: Duration?, on connection: BusConnection) {
        let due = held.filter { entry in time.map { entry.deadline <= $0 } ?? true }
        held.removeAll { entry in time.map { entry.deadline <= $0 } ?? true }
        for entry in due {
            connection.reply(
                toCall: entry.call.id, with: .error(name: "org.bluez.Error.NotConnected", message: "Not connected"))
        }
    }
}

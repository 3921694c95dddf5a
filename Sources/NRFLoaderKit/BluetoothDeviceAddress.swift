import DeviceLink

/// A 48-bit Bluetooth device address that round-trips through its `AA:BB:CC:DD:EE:FF` form: what
/// `UpdateTarget.bluetooth(address:options:)` and a fleet's targets take.
///
/// Parsing accepts either case and the twelve hex digits without separators; ``description`` is always the
/// uppercase form BlueZ prints, so two spellings of one address compare and hash equal.
public struct BluetoothDeviceAddress: Sendable, Hashable, CustomStringConvertible {
    private let address: BluetoothAddress

    /// Parses `AA:BB:CC:DD:EE:FF` (either case) or the same twelve hex digits without separators.
    ///
    /// - Parameter text: The address text.
    /// - Throws: ``UpdateError`` with ``ExitStatus/usage``, whose message names the text.
    public init(parsing text: String) throws(UpdateError) {
        do {
            address = try BluetoothAddress(parsing: text)
        } catch {
            throw UpdateError(error, status: .usage)
        }
    }

    /// An address from its six bytes, most-significant first (text order).
    ///
    /// - Parameter bytes: The bytes, as `AA:BB:CC:DD:EE:FF` writes them from left to right.
    public init(_ bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        address = BluetoothAddress(bytes)
    }

    /// The address as `AA:BB:CC:DD:EE:FF`, uppercase.
    public var description: String { address.description }
}

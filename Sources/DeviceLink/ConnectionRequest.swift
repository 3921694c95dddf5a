/// Which device to connect to.
package struct ConnectionRequest: Sendable, Equatable {
    /// The address to connect to.
    package var address: BluetoothAddress
    /// Another address the same device may use; the adapter connects to whichever advertises first.
    package var alternativeAddress: BluetoothAddress?
    /// The name the device must advertise, when the controller asked the application to set one.
    package var advertisedName: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - address: The address to connect to.
    ///   - alternativeAddress: Another address the same device may use.
    ///   - advertisedName: The name the device must advertise.
    package init(address: BluetoothAddress, alternativeAddress: BluetoothAddress? = nil, advertisedName: String? = nil)
    {
        self.address = address
        self.alternativeAddress = alternativeAddress
        self.advertisedName = advertisedName
    }
}

import BlueZ
import BlueZTransport
import DBus
import DFUController
import MCUbootImage
import SMPBlueZ

extension UploadCommand {
    /// `upload --target ADDRESS|--name NAME IMAGE.bin|dfu_application.zip|CATALOG-ID` with an MCUboot update: SMP
    /// (MCUmgr) over BlueZ, to a
    /// device with the SMP service (a device with only nRF5 DFU is refused at connection, naming both).
    ///
    /// `--timeout` bounds every wait: each answer, each connection (the search included) and each BlueZ call.
    func runSMPBluetooth(_ input: SMPUpdateInput) async throws {
        let (address, gatt, label) = try await openBluetoothDevice()
        var configuration = smpOptions.configuration(engineOptions)
        if let timeout = engineOptions.timeout { configuration.connectionTimeout = .seconds(timeout) }
        try await uploadSMP(
            input, named: label, over: BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: address)),
            configuration: configuration)
    }
}

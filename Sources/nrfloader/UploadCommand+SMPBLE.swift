import BlueZTransport
import DFUController
import MCUbootImage
import SMPBlueZ

extension UploadCommand {
    /// `upload --target ADDRESS|--name NAME IMAGE.bin` with a signed MCUboot image: SMP (MCUmgr) over BlueZ, to a
    /// device with the SMP service (a device with only nRF5 DFU is refused at connection, naming both).
    ///
    /// `--timeout` bounds every wait: each answer, each connection (the search included) and each BlueZ call.
    func runSMPBluetooth(_ image: MCUbootImage) async throws {
        let client = try await BlueZClient.connect()
        let chosen = try await client.adapter(named: adapter)
        let address: BluetoothAddress
        if let target {
            address = try BluetoothAddress(parsing: target)
        } else {
            address = try await resolve(name: name ?? "", client: client, adapter: chosen)
        }
        var options = BlueZGATTTransport.Options()
        options.usesAcquiredSockets = !noAcquire
        if wait { options.firstSearchTimeout = .seconds(engineOptions.timeout ?? 60) }
        options.operationTimeout = engineOptions.configuration.responseTimeout
        if let retries = engineOptions.retries { options.connectionAttempts = retries }
        let gatt = try await BlueZGATTTransport.open(client: client, adapter: chosen, options: options)
        var configuration = smpOptions.configuration(engineOptions)
        if let timeout = engineOptions.timeout { configuration.connectionTimeout = .seconds(timeout) }
        let label =
            name.map { "'\($0)' (\(address)) via \(chosen.interfaceName)" } ?? "\(address) via \(chosen.interfaceName)"
        try await uploadSMP(
            image, named: label, over: BlueZSMPTransport(gatt: gatt, request: ConnectionRequest(address: address)),
            configuration: configuration)
    }
}

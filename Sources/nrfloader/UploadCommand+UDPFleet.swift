import ArgumentParser
import NRFLoaderKit

/// `upload` of a signed MCUboot image to several devices over SMP on UDP: several `--target udp:…`, or
/// `--targets-from` with `udp:` lines. Each device gets its own SMP session, up to `--parallel` at once per host.
extension UploadCommand {
    /// The usage checks of a fleet whose `--target`s are `udp:` devices.
    func validateUDPFleet() throws {
        guard targets.allSatisfy(UDPDeviceAddress.isUDPTarget), name == nil, adapters.isEmpty else {
            throw ValidationError(
                "udp: targets cannot be mixed with Bluetooth or simulated devices, --name or --adapter")
        }
        if !fleetOptions.simFaultOn.isEmpty || simulatorOptions.simSaveImages != nil {
            throw ValidationError("--sim-fault-on and --sim-save-images need simulated targets (--target sim...)")
        }
        var seen: Set<UDPDeviceAddress> = []
        for target in targets {
            let address: UDPDeviceAddress
            do { address = try UDPDeviceAddress(parsing: target) } catch { throw ValidationError("--target: \(error)") }
            guard seen.insert(address).inserted else { throw ValidationError("--target \(target) is given twice") }
        }
    }

    /// Whether the fleet's devices are `udp:` ones (from `--target`, or the `--targets-from` list).
    func isUDPFleet() throws -> Bool {
        if targets.contains(where: UDPDeviceAddress.isUDPTarget) { return true }
        guard targets.isEmpty, name == nil, fleetOptions.targetsFrom != nil else { return false }
        return try !udpDevices().isEmpty
    }

    /// The `udp:` devices `--target` and `--targets-from` name, each once, in that order.
    func udpDevices() throws -> [UDPDeviceAddress] {
        var listed = try targets.map { try UDPDeviceAddress(parsing: $0) }
        if let file = fleetOptions.targetsFrom {
            let list = try FleetTargetList(try InputText.read(file), file: file == "-" ? "<stdin>" : file)
            if !list.entries.isEmpty, !listed.isEmpty {
                throw FleetTargetListError(description: "\(file): Bluetooth devices, and udp: devices in --target")
            }
            for address in list.udpAddresses where !listed.contains(address) { listed.append(address) }
        }
        return listed
    }

    /// Runs the UDP fleet and exits with the most serious device status when any device was not updated.
    func runUDPFleet(_ firmware: Firmware, image: MCUbootImageInfo) async throws {
        let addresses = try udpDevices()
        let devices = addresses.map { (address: $0.description, lane: "udp:\($0.host)") }
        let updates = addresses.map {
            FirmwareUpdate(firmware: firmware, target: .udp($0), options: updateOptions)
        }
        try await runSMPUpdates(updates, image: image, devices: devices)
    }
}

import ArgumentParser
import NRFLoaderBlueZ
import NRFLoaderKit

/// `upload` of a signed MCUboot image to several devices over SMP through BlueZ: several `--target`,
/// `--targets-from`, several `--adapter`. Each device gets its own SMP session (its own BlueZ client, so that its
/// discovery session is its own), up to `--parallel` at once per adapter; link set-ups on one adapter still take
/// turns (``BluetoothFleet/run(_:onEvent:)``).
extension UploadCommand {
    /// Runs the fleet and exits with the most serious device status when any device was not updated.
    func runSMPFleet(_ firmware: Firmware, image: MCUbootImageInfo) async throws {
        if try isUDPFleet() { return try await runUDPFleet(firmware, image: image) }
        guard name == nil else {
            throw ValidationError(
                "--name REGEX --all with a signed MCUboot image is not supported; give the devices with --target or "
                    + "--targets-from")
        }
        let listed = try listedDevices()
        let bluetooth = try await BluetoothFleet.open(adapters: adapters)
        let devices = listed.enumerated().map { index, entry in
            (address: entry.address.description, lane: bluetooth.adapters[index % bluetooth.adapters.count])
        }
        let updates = try bluetoothUpdates(firmware, bluetooth, devices)
        try await runSMPUpdates(updates, image: image, devices: devices)
    }

    /// Runs an SMP fleet's updates, rendering their events, and exits with the most serious device status when any
    /// device was not updated.
    func runSMPUpdates(
        _ updates: [FirmwareUpdate], image: MCUbootImageInfo, devices: [(address: String, lane: String)]
    ) async throws {
        let renderer = SMPFleetRenderer(mode: renderMode, image: image, devices: devices)
        let parallel = fleetOptions.parallel ?? FleetOptions.defaultParallel
        renderer.begin(parallel: parallel)
        let fleet = FleetUpdate(updates, maximumConcurrentUpdates: parallel)
        let run = Task { await fleet.run { renderer.handle($0) } }
        Interrupts.onFirstInterrupt { run.cancel() }
        let outcomes = await run.value
        renderer.summary(exitStatus: ExitStatus.mostSerious(of: outcomes.map(\.exitStatus)))
        try finishFleet(outcomes)
    }

    /// The checked MCUboot image when the input of a fleet is one (a file starting with the image magic, or a catalog
    /// id with `dfu.mcuboot`), else `nil`.
    func mcubootFleetInput() throws -> (Firmware, MCUbootImageInfo)? {
        // Standard input is read once, by whichever path takes it.
        guard input != "-" else { return nil }
        let firmware = try Firmware(input, options: firmwareOptions)
        guard firmware.isMCUboot else { return nil }
        guard let image = firmware.mcubootImage else {
            throw ValidationError(
                "'\(input)' is an nRF Connect SDK package; several devices take one signed MCUboot image per run")
        }
        return (firmware, image)
    }
}

import ArgumentParser
import NRFLoaderKit

/// `nrfloader storage-erase`: Zephyr basic group's storage erase.
struct StorageEraseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage-erase",
        abstract: "Erase an SMP (MCUmgr) device's storage partition (CONFIG_MCUMGR_GRP_ZBASIC_STORAGE_ERASE).",
        discussion: """
            The partition labelled storage_partition holds the saved settings (and any file system on it); the \
            request is sent once.
            """)

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let reply = try await device.send { try await $0.eraseStorage() }
        SMPGroupOutput.emit("storage-erase", device, attempts: reply.attempts, [:], text: "storage partition erased")
    }
}

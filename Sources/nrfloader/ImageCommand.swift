import ArgumentParser
import NRFLoaderKit

/// `nrfloader image list|test|confirm|erase`: an MCUboot device's image slots over SMP (MCUmgr image group).
struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Read and change the image slots of an MCUboot device over SMP (MCUmgr).",
        discussion: """
            The device is a Zephyr application with MCUmgr, or MCUboot in serial recovery: --port PATH (the SMP \
            console framing) or --target sim:smp. A device's refusal exits 76 naming its error, e.g. "device refused \
            image test: rc 8 (IMG_MGMT_ERR_HASH_NOT_FOUND: …)".
            """,
        subcommands: [ImageListCommand.self, ImageTestCommand.self, ImageConfirmCommand.self, ImageEraseCommand.self]
    )
}

/// `nrfloader image list`: every slot the device reports.
struct ImageListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show every image slot: image, slot, version, flags (active, confirmed, pending, permanent, "
            + "bootable) and SHA-256 hash.")

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let reply = try await device.send { try await $0.imageState() }
        SMPVerbOutput.imageState(reply, command: "image list", device: device)
    }
}

/// `nrfloader image test HASH`: mark an image for test (MCUboot swaps to it on the next reset, and back unless
/// confirmed).
struct ImageTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Mark the image with this hash to be tested: MCUboot boots it on the next reset and reverts to the "
            + "current one unless it is confirmed.")

    @Argument(help: "The image's SHA-256 hash, 64 hex digits, as 'image list' shows it.")
    var hash: String

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func validate() throws {
        _ = try ImageHashArgument.parse(hash)
    }

    func run() async throws {
        let hash = try ImageHashArgument.parse(hash)
        let reply = try await device.send { try await $0.testImage(hash: hash) }
        SMPVerbOutput.imageState(reply, command: "image test", device: device)
    }
}

/// `nrfloader image confirm [HASH]`: make an image permanent, or confirm the running one.
struct ImageConfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Confirm the running image (so MCUboot does not revert it), or with a hash make that image "
            + "permanent from the next reset on.")

    @Argument(help: "The image's SHA-256 hash, 64 hex digits (default: the running image).")
    var hash: String?

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func validate() throws {
        if let hash { _ = try ImageHashArgument.parse(hash) }
    }

    func run() async throws {
        let hash = try hash.map(ImageHashArgument.parse)
        let reply = try await device.send { try await $0.confirmImage(hash: hash) }
        SMPVerbOutput.imageState(reply, command: "image confirm", device: device)
    }
}

/// `nrfloader image erase [--slot N]`: erase an image slot.
struct ImageEraseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase an image slot (by default the one the device picks, the secondary slot); the device refuses "
            + "the running slot and a pending one.")

    @Option(help: "The slot to erase (default: the device's default, slot 1).")
    var slot: Int?

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func validate() throws {
        if let slot, slot < 0 { throw ValidationError("--slot must be 0 or more") }
    }

    func run() async throws {
        let slot = slot
        let reply = try await device.send { try await $0.eraseImage(slot: slot) }
        SMPVerbOutput.erased(slot: slot, device: device, attempts: reply.attempts)
    }
}

/// A SHA-256 image hash on the command line: 64 hex digits.
enum ImageHashArgument {
    /// The hash's 32 bytes.
    ///
    /// - Parameter text: The argument.
    /// - Returns: The 32 bytes.
    /// - Throws: `ValidationError` naming the argument when it is not 64 hex digits.
    static func parse(_ text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        let values = digits.compactMap { digit -> UInt8? in
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard digits.count == 64, values.count == 64 else {
            throw ValidationError(
                "HASH '\(text.escapedForTerminal)' is not 64 hex digits (the SHA-256 hash 'image list' shows)")
        }
        return stride(from: 0, to: 64, by: 2).map { values[$0] << 4 | values[$0 + 1] }
    }
}

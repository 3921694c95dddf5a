import ArgumentParser
import NRFLoaderKit

/// `nrfloader enum`: the management groups a device has, from its enumeration group.
struct EnumCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enum",
        abstract: "List an SMP (MCUmgr) device's management groups (CONFIG_MCUMGR_GRP_ENUM).",
        discussion: """
            Asks for details (names and handler counts, CONFIG_MCUMGR_GRP_ENUM_DETAILS) and, from a device without \
            them, for the list of group ids.
            """)

    @OptionGroup(title: "Device") var device: SMPTargetOptions

    func run() async throws {
        let reply = try await device.send { try await $0.managementGroups() }
        let groups = reply.value
        let rows = groups.map { [String($0.id), $0.name ?? "-", $0.handlers.map(String.init) ?? "-"] }
        SMPGroupOutput.emit(
            "enum", device, attempts: reply.attempts,
            [
                "groups": .array(
                    groups.map { group in
                        .object([
                            "id": .int(group.id), "name": .optional(group.name) { .string($0) },
                            "handlers": .optional(group.handlers) { .int($0) },
                        ])
                    })
            ],
            text: table([["GROUP", "NAME", "HANDLERS"]] + rows, rightAligned: [0, 2]))
    }
}

import ArgumentParser
import NRFLoaderKit

/// `nrfloader stat list|read GROUP`: the statistics management group over SMP.
struct StatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat", abstract: "Read an SMP (MCUmgr) device's statistics groups (CONFIG_MCUMGR_GRP_STAT).",
        subcommands: [List.self, Read.self])

    /// `stat list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print the names of the device's statistics groups.")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.statisticsGroups() }
            SMPGroupOutput.emit(
                "stat list", device, attempts: reply.attempts, ["groups": .array(reply.value.map { .string($0) })],
                text: reply.value.isEmpty
                    ? "(no statistics groups)" : reply.value.map(\.escapedForTerminal).joined(separator: "\n"))
        }
    }

    /// `stat read GROUP`.
    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Print every field of one statistics group (mcumgr's 'stat show').")

        @Argument(help: "The group's name (see stat list).")
        var group: String

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let group = group
            let reply = try await device.send { try await $0.statistics(group: group) }
            let fields = reply.value.fields
            SMPGroupOutput.emit(
                "stat read", device, attempts: reply.attempts,
                [
                    "group": .string(reply.value.name),
                    "fields": .array(
                        fields.map { .object(["name": .string($0.name), "value": SMPGroupOutput.number($0.value)]) }),
                ],
                text: table([["FIELD", "VALUE"]] + fields.map { [$0.name, String($0.value)] }, rightAligned: [1]))
        }
    }
}

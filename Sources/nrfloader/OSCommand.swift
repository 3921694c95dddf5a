import ArgumentParser
import NRFLoaderKit

/// `nrfloader os params|taskstat|mpstat|datetime|info|bootloader-info`: the OS management group over SMP.
struct OSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "os",
        abstract: "Read an SMP (MCUmgr) device's OS group: parameters, threads, memory pools, clock, info, bootloader.",
        discussion: """
            Each subcommand sends one request of Zephyr's OS management group (os_mgmt) and prints the answer; a \
            device built without the command answers rc 8 (MGMT_ERR_ENOTSUP) and the command exits 76. Zephyr has \
            no mpstat handler: its devices always answer that one with rc 8.
            """,
        subcommands: [Params.self, Taskstat.self, Mpstat.self, Datetime.self, Info.self, BootloaderInfoCommand.self])

    /// `os params`.
    struct Params: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "params",
            abstract: "Print the device's SMP buffer size and count (CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS).")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.parameters() }
            let value = reply.value
            SMPGroupOutput.emit(
                "os params", device, attempts: reply.attempts,
                ["buf_size": .int(value.bufferSize), "buf_count": .int(value.bufferCount)],
                text: "buf_size \(value.bufferSize)\nbuf_count \(value.bufferCount)")
        }
    }

    /// `os taskstat`.
    struct Taskstat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "taskstat", abstract: "Print the device's threads (CONFIG_MCUMGR_GRP_OS_TASKSTAT).")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.taskStatistics() }
            let tasks = reply.value
            func optional(_ value: Int?) -> String { value.map(String.init) ?? "-" }
            let rows = tasks.map { task in
                [
                    task.name, String(task.priority), String(task.id), String(task.state), optional(task.stackSize),
                    optional(task.stackUsed), task.runtime.map { String($0) } ?? "-",
                ]
            }
            let json = tasks.map { task -> JSONValue in
                .object([
                    "name": .string(task.name), "priority": .int(task.priority), "id": .int(task.id),
                    "state": .int(task.state), "stack_size": .optional(task.stackSize) { .int($0) },
                    "stack_used": .optional(task.stackUsed) { .int($0) },
                    "runtime": .optional(task.runtime) { SMPGroupOutput.number($0) },
                ])
            }
            SMPGroupOutput.emit(
                "os taskstat", device, attempts: reply.attempts, ["tasks": .array(json)],
                text: table(
                    [["TASK", "PRIO", "TID", "STATE", "STKSIZ", "STKUSE", "RUNTIME"]] + rows,
                    rightAligned: [1, 2, 3, 4, 5, 6]))
        }
    }

    /// `os mpstat`.
    struct Mpstat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mpstat", abstract: "Print the device's memory pools (Zephyr devices answer rc 8).")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.memoryPoolStatistics() }
            let rows = reply.value.map {
                [$0.name, String($0.blockSize), String($0.blocks), String($0.free), String($0.minimumFree)]
            }
            let json = reply.value.map { pool -> JSONValue in
                .object([
                    "name": .string(pool.name), "block_size": .int(pool.blockSize), "blocks": .int(pool.blocks),
                    "free": .int(pool.free), "minimum_free": .int(pool.minimumFree),
                ])
            }
            SMPGroupOutput.emit(
                "os mpstat", device, attempts: reply.attempts, ["pools": .array(json)],
                text: table([["POOL", "BLKSIZ", "NBLKS", "NFREE", "MIN"]] + rows, rightAligned: [1, 2, 3, 4]))
        }
    }

    /// `os datetime [get|set VALUE]`.
    struct Datetime: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "datetime",
            abstract: "Print the device's clock, or set it (CONFIG_MCUMGR_GRP_OS_DATETIME).",
            discussion: "'os datetime' and 'os datetime get' print it; 'os datetime set 2026-11-27T12:00:00' sets it.")

        @Argument(help: "get (default), or set followed by the time as yyyy-MM-ddTHH:mm:ss.")
        var words: [String] = []

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func validate() throws {
            switch words.count {
            case 0: break
            case 1 where words[0] == "get": break
            case 2 where words[0] == "set": break
            default: throw ValidationError("give 'get' or 'set yyyy-MM-ddTHH:mm:ss'")
            }
        }

        func run() async throws {
            if words.first == "set" {
                let value = words[1]
                let reply = try await device.send { try await $0.setDateTime(value) }
                SMPGroupOutput.emit(
                    "os datetime set", device, attempts: reply.attempts, ["datetime": .string(value)],
                    text: "device clock set to \(value.escapedForTerminal)")
                return
            }
            let reply = try await device.send { try await $0.dateTime() }
            SMPGroupOutput.emit(
                "os datetime", device, attempts: reply.attempts, ["datetime": .string(reply.value)],
                text: reply.value.escapedForTerminal)
        }
    }

    /// `os info [FORMAT]`.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Print the application's uname-style description (CONFIG_MCUMGR_GRP_OS_INFO).")

        @Argument(
            help: ArgumentHelp(
                "Letters: s kernel, n node, r release, v version, b build time, m machine, p processor, i platform, "
                    + "o OS, a all (default: s)."))
        var format: String?

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let format = format
            let reply = try await device.send { try await $0.applicationInfo(format: format) }
            SMPGroupOutput.emit(
                "os info", device, attempts: reply.attempts, ["output": .string(reply.value)],
                text: reply.value.escapedForTerminal)
        }
    }

    /// `os bootloader-info`.
    struct BootloaderInfoCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bootloader-info",
            abstract: "Print the bootloader's name and MCUboot's mode (CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO).")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.bootloaderInfo() }
            let info = reply.value
            var text = info.name.escapedForTerminal
            if let mode = info.mode {
                text += ", mode \(mode) (\(mode.number)), \(mode.hasTestAndRevert ? "tests and reverts" : "no revert")"
            }
            if info.refusesDowngrade { text += ", refuses downgrades" }
            SMPGroupOutput.emit(
                "os bootloader-info", device, attempts: reply.attempts,
                [
                    "bootloader": .string(info.name), "mode": .optional(info.mode) { .int($0.number) },
                    "mode_name": .optional(info.mode) { .string($0.description) },
                    "test_and_revert": .optional(info.mode) { .bool($0.hasTestAndRevert) },
                    "no_downgrade": .bool(info.refusesDowngrade),
                ],
                text: text)
        }
    }
}

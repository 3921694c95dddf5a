import ArgumentParser
import NRFLoaderKit

/// `nrfloader fs upload|download|status|hash|hash-types`: the file system management group over SMP.
struct FSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fs",
        abstract: "Move files to and from an SMP (MCUmgr) device's file system (CONFIG_MCUMGR_GRP_FS).",
        subcommands: [Upload.self, Download.self, Status.self, Hash.self, HashTypes.self])

    /// `fs status PATH`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Print a file's length (CONFIG_MCUMGR_GRP_FS_FILE_STATUS).")

        @Argument(help: "The file's path on the device, e.g. /lfs/log.txt.")
        var path: String

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let path = path
            let reply = try await device.send { try await $0.fileStatus(path) }
            SMPGroupOutput.emit(
                "fs status", device, attempts: reply.attempts, ["path": .string(path), "length": .int(reply.value)],
                text: "\(path.escapedForTerminal): \(reply.value) bytes")
        }
    }

    /// `fs hash PATH [--type T]`.
    struct Hash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hash",
            abstract: "Print a file's checksum or hash, computed by the device (CONFIG_MCUMGR_GRP_FS_CHECKSUM_HASH).")

        @Argument(help: "The file's path on the device.")
        var path: String

        @Option(help: "crc32 or sha256 (default: the device's, CRC-32 where it has it).")
        var type: String?

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let (path, type) = (path, type)
            let reply = try await device.send { try await $0.fileHash(path, type: type) }
            let hash = reply.value
            let value: String
            switch hash.value {
            case .number(let number):
                let digits = String(number, radix: 16)
                value = "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
            case .bytes(let bytes): value = SMPGroupOutput.hex(bytes)
            }
            SMPGroupOutput.emit(
                "fs hash", device, attempts: reply.attempts,
                [
                    "path": .string(path), "type": .string(hash.type), "length": .int(hash.length),
                    "value": .string(value),
                ],
                text: "\(hash.type.escapedForTerminal) \(value) (\(hash.length) bytes of \(path.escapedForTerminal))")
        }
    }

    /// `fs hash-types`.
    struct HashTypes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hash-types", abstract: "List the checksum and hash types the device computes.")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let reply = try await device.send { try await $0.fileHashTypes() }
            let rows = reply.value.map { [$0.name, $0.isByteString ? "bytes" : "number", String($0.size)] }
            SMPGroupOutput.emit(
                "fs hash-types", device, attempts: reply.attempts,
                [
                    "types": .array(
                        reply.value.map {
                            .object(["name": .string($0.name), "bytes": .bool($0.isByteString), "size": .int($0.size)])
                        })
                ],
                text: table([["TYPE", "FORMAT", "SIZE"]] + rows, rightAligned: [2]))
        }
    }
}

import ArgumentParser
import NRFLoaderKit
import Synchronization

/// `fs upload LOCAL REMOTE` and `fs download REMOTE LOCAL`.
extension FSCommand {
    /// `fs upload LOCAL REMOTE`.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload",
            abstract: "Write a local file to the device's file system, with progress and resume.",
            discussion: """
                Chunks fill the device's SMP buffer (its MCUmgr parameters, or Zephyr's 384 bytes). A lost answer is \
                sent again after a reconnection and the upload goes on from the offset the device reports. When the \
                device already holds the first part of the file (fs status, then its SHA-256 or CRC-32 of that part \
                matching the local file's), the upload resumes after it; --no-resume writes the whole file.
                """)

        @Argument(help: "The local file.")
        var local: String

        @Argument(help: "The path on the device, e.g. /lfs/config.bin.")
        var remote: String

        @Flag(help: "Write the whole file even when the device holds a matching first part.")
        var noResume = false

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let bytes = try InputText.read(local)
            let (remote, resume) = (remote, !noResume)
            let progress = TransferProgress("fs upload", device)
            let reply = try await device.send {
                try await $0.uploadFile(bytes, to: remote, resume: resume) { progress.report($0) }
            }
            progress.end()
            let value = reply.value
            let resumed = value.resumedAt > 0 ? ", resumed at byte \(value.resumedAt)" : ""
            let text =
                value.resumedAt == value.length && value.length > 0
                ? "\(remote.escapedForTerminal): the device already holds these \(value.length) bytes"
                : "\(remote.escapedForTerminal): \(value.length) bytes written\(resumed)"
            SMPGroupOutput.emit(
                "fs upload", device, attempts: reply.attempts,
                [
                    "path": .string(remote), "length": .int(value.length), "resumed_at": .int(value.resumedAt),
                    "chunk": .int(value.largestChunk), "buf_size": .int(value.bufferSize),
                ],
                text: text)
        }
    }

    /// `fs download REMOTE LOCAL`.
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Read a file from the device's file system into a local file, with progress.",
            discussion: """
                The device sends chunks that fill its SMP buffer. A lost answer is asked for again after a \
                reconnection, from the offset received. The local file is written to a temporary file and renamed \
                once whole.
                """)

        @Argument(help: "The path on the device.")
        var remote: String

        @Argument(help: "The local file to write.")
        var local: String

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let remote = remote
            let output = try OutputFile(path: local)
            let progress = TransferProgress("fs download", device)
            let reply = try await device.send { try await $0.downloadFile(remote) { progress.report($0) } }
            progress.end()
            try output.write(reply.value.bytes)
            try output.commit()
            SMPGroupOutput.emit(
                "fs download", device, attempts: reply.attempts,
                [
                    "path": .string(remote), "file": .string(local), "length": .int(reply.value.length),
                    "chunk": .int(reply.value.largestChunk),
                ],
                text: "\(remote.escapedForTerminal): \(reply.value.length) bytes read into \(local.escapedForTerminal)")
        }
    }
}

/// A transfer's progress: `--json` progress events at every tenth of the file, a line on stderr at every tenth (or
/// in place on a terminal), nothing with `--quiet`.
final class TransferProgress: Sendable {
    private let command: String
    private let mode: Mode
    private let target: String
    private let lastTenth = Mutex(-1)

    private enum Mode {
        case json
        case quiet
        case lines
        case terminal
    }

    init(_ command: String, _ device: SMPTargetOptions) {
        self.command = command
        target = device.label
        if device.output.json {
            mode = .json
        } else if device.output.quiet {
            mode = .quiet
        } else {
            mode = Console.isTerminal(2) && !Console.isDumbTerminal ? .terminal : .lines
        }
    }

    func report(_ progress: FileTransferProgress) {
        let total = max(progress.totalBytes, 1)
        let tenth = progress.bytesDone * 10 / total
        switch mode {
        case .quiet: return
        case .terminal:
            Console.noteInline("\r\(command): \(progress.bytesDone)/\(progress.totalBytes) bytes")
            return
        case .json, .lines: break
        }
        guard
            lastTenth.withLock({ last in
                defer { last = max(last, tenth) }
                return tenth > last
            })
        else { return }
        if mode == .json {
            Console.json(
                .object([
                    "event": .string("progress"), "schema": .int(JSONValue.schemaVersion), "command": .string(command),
                    "target": .string(target), "bytes_done": .int(progress.bytesDone),
                    "total_bytes": .int(progress.totalBytes),
                ]))
        } else {
            Console.note("\(command): \(progress.bytesDone)/\(progress.totalBytes) bytes")
        }
    }

    /// Ends an in-place progress line.
    func end() {
        if mode == .terminal { Console.noteInline("\n") }
    }
}

import ArgumentParser
import NRFLoaderKit

/// `nrfloader settings read|write|delete|commit|load|save`: a device's settings over SMP (Zephyr's settings
/// management group), beside `settings generate|display` for nRF5 bootloader settings pages.
extension SettingsCommand {
    /// `settings read NAME`.
    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read",
            abstract: "Print a setting's running value from an SMP (MCUmgr) device (CONFIG_MCUMGR_GRP_SETTINGS).",
            discussion: "Prints the value as hex digits, or with --text as text (escaped).")

        @Argument(help: "The setting's name, e.g. app/greeting.")
        var name: String

        @Option(help: "Read at most this many bytes (default: the device's limit).")
        var maxSize: Int?

        @Flag(help: "Print the value as text instead of hex digits.")
        var text = false

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func validate() throws {
            if let maxSize, maxSize < 0 { throw ValidationError("--max-size must be 0 or more") }
        }

        func run() async throws {
            let (name, maxSize) = (name, maxSize)
            let reply = try await device.send { try await $0.readSetting(name, maximumSize: maxSize) }
            let value = reply.value
            let shown = text ? String(decoding: value, as: UTF8.self).escapedForTerminal : SMPGroupOutput.hex(value)
            SMPGroupOutput.emit(
                "settings read", device, attempts: reply.attempts,
                ["name": .string(name), "value_hex": .string(SMPGroupOutput.hex(value))], text: shown)
        }
    }

    /// `settings write NAME VALUE`.
    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write", abstract: "Set a setting's running value on the device ('settings save' stores it).")

        @Argument(help: "The setting's name.")
        var name: String

        @Argument(help: "The value: text (its UTF-8 bytes), or with --hex hex digits.")
        var value: String

        @Flag(help: "Read VALUE as hex digits.")
        var hex = false

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        /// The value's bytes.
        var bytes: [UInt8] {
            get throws {
                guard hex else { return Array(value.utf8) }
                let digits = Array(value.utf8)
                guard digits.count.isMultiple(of: 2) else { throw ValidationError("--hex: an odd number of digits") }
                return try stride(from: 0, to: digits.count, by: 2).map { index in
                    guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                        throw ValidationError("--hex: '\(value)' is not hex digits")
                    }
                    return byte
                }
            }
        }

        func validate() throws { _ = try bytes }

        func run() async throws {
            let (name, bytes) = (name, try bytes)
            let reply = try await device.send { try await $0.writeSetting(name, value: bytes) }
            SMPGroupOutput.emit(
                "settings write", device, attempts: reply.attempts,
                ["name": .string(name), "value_hex": .string(SMPGroupOutput.hex(bytes))],
                text: "\(name.escapedForTerminal) set (\(bytes.count) bytes)")
        }
    }

    /// `settings delete NAME`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a setting from the device's storage.")

        @Argument(help: "The setting's name.")
        var name: String

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws {
            let name = name
            let reply = try await device.send { try await $0.deleteSetting(name) }
            SMPGroupOutput.emit(
                "settings delete", device, attempts: reply.attempts, ["name": .string(name)],
                text: "\(name.escapedForTerminal) deleted")
        }
    }

    /// `settings commit|load|save`: the three requests without arguments.
    enum Action: String {
        case commit
        case load
        case save

        func send(_ device: SMPTargetOptions) async throws {
            let action = self
            let reply = try await device.send { target in
                switch action {
                case .commit: try await target.commitSettings()
                case .load: try await target.loadSettings()
                case .save: try await target.saveSettings()
                }
            }
            let text: String
            switch action {
            case .commit: text = "settings committed"
            case .load: text = "settings loaded from storage"
            case .save: text = "settings saved to storage"
            }
            SMPGroupOutput.emit("settings \(rawValue)", device, attempts: reply.attempts, [:], text: text)
        }
    }

    /// `settings commit`.
    struct Commit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "commit", abstract: "Run the device's settings commit handlers (sent once).")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws { try await Action.commit.send(device) }
    }

    /// `settings load`.
    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load", abstract: "Load the device's stored settings into the running application.")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws { try await Action.load.send(device) }
    }

    /// `settings save`.
    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save", abstract: "Save the device's running settings to its storage.")

        @OptionGroup(title: "Device") var device: SMPTargetOptions

        func run() async throws { try await Action.save.send(device) }
    }
}

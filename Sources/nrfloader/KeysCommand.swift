import ArgumentParser
import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader keys`: nrfutil 6.1.7 `keys generate` and `keys display`.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make a signing key, or show it or its public key, as nrfutil 6.1.7 'keys' does.",
        subcommands: [Generate.self, Display.self]
    )

    /// `keys generate FILE`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write a new P-256 private key (SEC 1 PEM, as nrfutil writes it).",
            discussion: """
                An existing FILE is never overwritten (nrfutil asks first): remove it to replace the key. The key is \
                written to a temporary file and renamed into place.
                """
        )

        @Argument(help: "The key file to create.")
        var keyFile: String

        func run() throws {
            guard access(keyFile, F_OK) != 0 else {
                Console.reportError(
                    "'\(keyFile)': already exists; remove it first to make a new key",
                    status: ExitStatus.cannotCreate.rawValue, json: false)
                throw ExitCode(ExitStatus.cannotCreate.rawValue)
            }
            let output = try OutputFile(path: keyFile, permissions: 0o600)
            try output.write(Array(SigningKey().privateKeyPEM.utf8))
            try output.commit()
            Console.result("Generated private key and stored it in: \(keyFile)")
        }
    }

    /// `keys display --key pk|sk --format hex|code|pem|dbgcode [--out_file F] FILE`.
    struct Display: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "display",
            abstract: "Print the public (pk) or private (sk) key as hex, C code or PEM, as nrfutil does.",
            discussion: """
                --format code writes the dfu_public_key.c a bootloader build compiles in (dbgcode: wrapped for debug \
                builds). With --out_file the text goes to that file (replaced atomically) instead of stdout.
                """
        )

        enum Key: String, ExpressibleByArgument, CaseIterable {
            case pk, sk
        }

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case hex, code, pem, dbgcode
        }

        @Argument(help: "The private key file (PEM).")
        var keyFile: String

        @Option(help: "Which key: pk (public) or sk (private).")
        var key: Key

        @Option(help: "hex, code (C source), pem or dbgcode.")
        var format: Format

        @Option(name: .customLong("out_file"), help: "Write to this file instead of stdout.")
        var outFile: String?

        func run() throws {
            if key == .sk && (format == .code || format == .dbgcode) {
                Console.note("Error: --key sk: displaying the private key as code is not available")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            let signingKey = try SigningKey(contentsOfFile: keyFile)
            var output: String
            switch (key, format) {
            case (.pk, .hex): output = signingKey.publicKeyHex
            case (.pk, .pem): output = signingKey.publicKeyPEM
            case (.pk, .code), (.pk, .dbgcode):
                output = signingKey.publicKeyCSource(generatedAt: Self.now(), isDebug: format == .dbgcode)
            case (.sk, .hex): output = signingKey.privateKeyHex
            case (.sk, .pem): output = signingKey.privateKeyPEM
            case (.sk, .code), (.sk, .dbgcode): return
            }
            if key == .sk { output = "\nWARNING: Security risk! Do not share the private key.\n\n" + output }
            guard let outFile else {
                // nrfutil prints with click.echo, which adds a newline.
                Console.result(output)
                return
            }
            let file = try OutputFile(path: outFile)
            try file.write(Array(output.utf8))
            try file.commit()
        }

        /// The local time as nrfutil's C header writes it: `2026-11-21 (YY-MM-DD) at 06:42:22`.
        static func now() -> String {
            var clock = time(nil)
            var local = tm()
            localtime_r(&clock, &local)
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(local.tm_year + 1900)-\(two(local.tm_mon + 1))-\(two(local.tm_mday)) (YY-MM-DD) at "
                + "\(two(local.tm_hour)):\(two(local.tm_min)):\(two(local.tm_sec))"
        }
    }
}

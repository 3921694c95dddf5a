import TestSupport

/// Runs the `openssl` and `python3` command-line tools for tests that check our keys and signatures against
/// software we did not write; each tool's tests are skipped when it is missing.
enum KeyTools {
    static let openssl = TestPaths.which("openssl")
    static let python = TestPaths.which("python3")

    /// Whether Python's `cryptography` package can be imported.
    static let hasPythonCryptography: Bool = {
        guard let python else { return false }
        return ProcessRunner().run(python, ["-c", "import cryptography"]).status == 0
    }()

    /// Runs `openssl` with `arguments` and returns its standard output as text.
    static func openssl(_ arguments: [String], input: [UInt8] = []) throws -> String {
        let result = ProcessRunner().run(try path(openssl, "openssl"), arguments, input: input)
        guard result.status == 0 else { throw ToolFailure(tool: "openssl \(arguments)", stderr: result.stderrText) }
        return result.stdoutText
    }

    /// Runs a Python program with `arguments` and returns its standard output as text.
    static func python(_ program: String, _ arguments: [String] = []) throws -> String {
        let result = ProcessRunner().run(try path(python, "python3"), ["-c", program] + arguments)
        guard result.status == 0 else { throw ToolFailure(tool: "python3", stderr: result.stderrText) }
        return result.stdoutText
    }

    private static func path(_ path: String?, _ name: String) throws -> String {
        guard let path else { throw ToolFailure(tool: name, stderr: "not installed") }
        return path
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var tool: String
        var stderr: String
        var description: String { "\(tool) failed: \(stderr)" }
    }
}

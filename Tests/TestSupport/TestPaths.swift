package import Foundation

/// Where things are, for tests that run the built tool or read files of the repository.
package enum TestPaths {
    /// The repository root, found from this file's path.
    package static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `nrfloader` executable beside the test bundle (SwiftPM builds it for `swift test`), or the one
    /// named by `NRFLOADER_BINARY`.
    package static var nrfloader: String {
        if let override = ProcessInfo.processInfo.environment["NRFLOADER_BINARY"] { return override }
        let bundle = Bundle.main.bundleURL
        var directory = bundle.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("nrfloader").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/nrfloader").path
    }

    /// The absolute path of a program on `PATH`, or `nil` if it is not installed.
    package static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
package struct TemporaryDirectory: Sendable {
    package let url: URL
    package var path: String { url.path }

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nrfloader-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `bytes` to `name` inside the directory and returns its path.
    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Reads `name` inside the directory.
    package func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }

    /// The names in the directory, sorted.
    package func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

import Foundation
import NRFLoaderKit
import TestSupport

/// Paths of the reference data the tool tests share, and small helpers over public API only.
enum Fixtures {
    static let root = TestPaths.repositoryRoot.path
    static let data = root + "/Tests/Data"
    static let packageBuilder = data + "/package-builder"
    static let packages = data + "/packages"
    static let settings = data + "/settings"
    static let signingKey = packages + "/nrfutil-test-key.pem"

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}

/// A conversion's output kept in memory.
final class MemoryOutput: ConversionOutput {
    let displayName: String
    private(set) var bytes: [UInt8] = []

    init(displayName: String = "<memory>") {
        self.displayName = displayName
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        self.bytes.append(contentsOf: bytes)
    }
}

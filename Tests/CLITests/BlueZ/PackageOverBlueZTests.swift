import Foundation
import TestSupport
import Testing

/// A signed package made by `nrfloader package` flashed over the rig's BlueZ to `nrfloader simulate`, which
/// requires signatures from the test key (issue 12's round trip).
@Suite("package over BlueZ", .tags(.integration), .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct PackageOverBlueZTests {
    static let root = TestPaths.repositoryRoot.path
    static let packages = root + "/Tests/Data/packages"
    static let privateKey = packages + "/nrfutil-test-key.pem"
    static let publicKey = packages + "/nrfutil-test-key.pub.pem"
    static let blinky = root + "/Resources/firmware/blinky-pca10040"

    @Test("package --key-file, then upload --verify-key to a simulate --key device: the image arrives byte for byte")
    func signedPackage() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let zip = work.file("blinky.zip")
        let made = ProcessRunner().run(
            TestPaths.nrfloader,
            [
                "package", "-q", "--hw-version", "52", "--sd-req", "0x0101", "--application", Self.blinky + ".hex",
                "--application-version", "3", "--key-file", Self.privateKey, zip,
            ])
        #expect(made.status == 0, "\(made.stderrText)")
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            defer { images.remove() }
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--save-images", images.path, "--kind", "secure", "--sd-id", "0x0101", "--key",
                Self.publicKey,
            ])
            let result = ProcessRunner().run(
                TestPaths.nrfloader,
                ["upload", "--adapter", "hci0", "--target", "C0:DE:00:00:00:02", zip, "--verify-key", Self.publicKey],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            let saved = try FileManager.default.contentsOfDirectory(atPath: images.path)
            #expect(saved == ["application.bin"])
            #expect(
                try images.read("application.bin")
                    == Array(try Data(contentsOf: URL(fileURLWithPath: Self.blinky + ".bin"))))
        }
    }
}

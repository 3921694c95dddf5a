import Foundation
import TestSupport
import Testing

/// `nrfloader upload` to several devices at once through BlueZ, each an `nrfloader simulate` on its own adapter of
/// the rig, some faulty (issue 14).
@Suite(
    "upload to several devices over BlueZ", .tags(.integration),
    .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct FleetUploadOverBlueZTests {
    static let root = TestPaths.repositoryRoot.path
    static let packages = root + "/Tests/Data/packages"
    static let publicKey = packages + "/nrfutil-test-key.pub.pem"
    static let package = packages + "/nrfutil617-blinky-signed.zip"
    static let secureDevice = ["--kind", "secure", "--sd-id", "0x0101", "--key", publicKey]

    static func file(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// What a simulated device activated, by file name.
    static func savedImages(in directory: TemporaryDirectory) throws -> [String: [UInt8]] {
        var images: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            images[name] = try file(directory.file(name))
        }
        return images
    }

    static func jsonObjects(_ result: ProcessResult) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("five devices in one run: three confirm byte for byte (one after a lost link), one rejects, one is absent")
    func fleet() async throws {
        try await BlueZRig.with { rig in
            // hci1 (C0:DE:00:00:00:02) exists; three more adapters play the other devices.
            let addresses = ["C0:DE:00:00:00:02", "C0:DE:00:00:00:12", "C0:DE:00:00:00:22", "C0:DE:00:00:00:32"]
            for (index, address) in addresses.enumerated().dropFirst() {
                try await rig.addAdapter(UInt8(index + 1), address: address)
            }
            let absent = "C0:DE:00:00:00:99"
            let good = try TemporaryDirectory()
            let second = try TemporaryDirectory()
            let disconnecting = try TemporaryDirectory()
            let rejecting = try TemporaryDirectory()
            defer {
                for directory in [good, second, disconnecting, rejecting] { directory.remove() }
            }
            let devices: [(String, TemporaryDirectory, [String])] = [
                ("hci1", good, []),
                ("hci2", second, []),
                ("hci3", disconnecting, ["--sim-fault", "disconnect@300"]),
                ("hci4", rejecting, ["--sim-fault", "respond@04:0B:05"]),
            ]
            var simulators: [SimulateProcess] = []
            for (adapter, directory, faults) in devices {
                simulators.append(
                    try await rig.startSimulate(
                        ["--adapter", adapter, "--save-images", directory.path] + Self.secureDevice + faults))
            }
            let result = ProcessRunner().run(
                TestPaths.nrfloader,
                ["upload", "--adapter", "hci0", "--json", Self.package]
                    + (addresses + [absent]).flatMap {
                        ["--target", $0]
                    },
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            let logs = simulators.map(\.log).joined(separator: "\n---\n")
            #expect(result.status == 76, "\(result.stderrText)\n\(logs)")
            #expect(result.stderrText == "Error: 2 of 5 devices were not updated (see the summary)\n")

            let blinky = ["application.bin": try Self.file(Self.root + "/Resources/firmware/blinky-pca10040.bin")]
            #expect(try Self.savedImages(in: good) == blinky)
            #expect(try Self.savedImages(in: second) == blinky)
            #expect(try Self.savedImages(in: disconnecting) == blinky)
            #expect(try Self.savedImages(in: rejecting).isEmpty)

            let objects = try Self.jsonObjects(result)
            let summary = try #require(objects.last)
            #expect(summary["event"] as? String == "summary")
            #expect(summary["exit_status"] as? Int == 76)
            let rows = try #require(summary["devices"] as? [[String: Any]])
            #expect(rows.map { $0["device"] as? String } == addresses + [absent])
            #expect(rows.map { $0["adapter"] as? String } == ["hci0", "hci0", "hci0", "hci0", "hci0"])
            #expect(
                rows.map { $0["status"] as? String } == ["completed", "completed", "completed", "failed", "failed"])
            #expect(rows.map { $0["exit_status"] as? Int } == [0, 0, 0, 76, 69], "\(rows)")
            #expect(rows.map { $0["bytes_confirmed"] as? Int } == [604, 604, 604, 0, 0])
            #expect(
                rows[3]["message"] as? String
                    == "target rejected execute (0x04) with extendedError (0x0B): firmwareVersionFailure (0x05)")
            #expect((rows[4]["message"] as? String)?.contains(absent) == true, "\(rows[4])")
            // The lost link was resumed by its own controller.
            #expect(
                objects.contains {
                    $0["device"] as? String == addresses[2]
                        && ($0["message"] as? String)?.hasPrefix("link lost; reconnecting") == true
                })
        }
    }

    @Test("--name REGEX --all finds every matching device, and --count stops the scan")
    func byName() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:12")
            try await rig.addAdapter(3, address: "C0:DE:00:00:00:22")
            let first = try TemporaryDirectory()
            let second = try TemporaryDirectory()
            defer {
                for directory in [first, second] { directory.remove() }
            }
            _ = try await rig.startSimulate(
                ["--adapter", "hci1", "--name", "Rack-1", "--save-images", first.path] + Self.secureDevice)
            _ = try await rig.startSimulate(
                ["--adapter", "hci2", "--name", "Rack-2", "--save-images", second.path] + Self.secureDevice)
            _ = try await rig.startSimulate(["--adapter", "hci3", "--name", "Other"] + Self.secureDevice)
            let result = ProcessRunner().run(
                TestPaths.nrfloader,
                [
                    "upload", "--adapter", "hci0", "--name", "^Rack-[0-9]$", "--all", "--count", "2", "--timeout", "20",
                    "-q", Self.package,
                ],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            #expect(result.status == 0, "\(result.stderrText)")
            let blinky = ["application.bin": try Self.file(Self.root + "/Resources/firmware/blinky-pca10040.bin")]
            #expect(try Self.savedImages(in: first) == blinky)
            #expect(try Self.savedImages(in: second) == blinky)
            let rows = result.stdoutText.split(separator: "\n").dropFirst().map {
                $0.split(separator: " ").prefix(4).joined(separator: " ")
            }
            #expect(
                rows.sorted() == [
                    "C0:DE:00:00:00:02 Rack-1 hci0 completed", "C0:DE:00:00:00:12 Rack-2 hci0 completed",
                ])
        }
    }
}

import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader upload` through BlueZ against `nrfloader simulate`, as a user runs them.
///
/// Both run on the rig's private bus with bluezoo in between (issue 5, item 7). Every image the simulated device
/// activates is compared byte for byte with what was sent.
@Suite("upload over BlueZ", .tags(.integration), .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct UploadOverBlueZTests {
    static let root = TestPaths.repositoryRoot.path
    static let packages = root + "/Tests/Data/packages"
    static let firmware = root + "/Resources/firmware"
    static let privateKey = packages + "/nrfutil-test-key.pem"
    static let publicKey = packages + "/nrfutil-test-key.pub.pem"
    static let peripheral = "C0:DE:00:00:00:02"
    static let bootloaderAddress = "C0:DE:00:00:00:03"

    /// Which way packets and notifications travel between nrfloader and BlueZ.
    enum IOPath: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// An `AcquireWrite` socket for packets; notifications through `StartNotify` (`AcquireNotify` is not used:
        /// bluetoothd before 5.84 can hold a characteristic for an unanswered one, Tests/VM/README.md).
        case acquired
        /// `WriteValue`/`StartNotify` calls only (`--no-acquire`).
        case dbus

        var uploadArguments: [String] { self == .dbus ? ["--no-acquire"] : [] }
        /// bluezoo offers a central AcquireWrite only when the server application does, and `simulate` does not
        /// by default (bluetoothd 5.66, testrig.md).
        var simulateArguments: [String] { self == .acquired ? ["--acquire-write"] : [] }
        var testDescription: String { rawValue }
    }

    /// One kind of input, with the simulated device that accepts it and the images it must end up with.
    struct Input: CustomTestStringConvertible, Sendable {
        var label: String
        var simulate: [String]
        var upload: [String]
        /// Saved image name (`application.bin`) → the bytes expected.
        var expected: @Sendable () throws -> [String: [UInt8]]

        var testDescription: String { label }
    }

    static func file(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A member of a zip, read by Python's zipfile (a reader independent of ours).
    static func zipMember(_ zip: String, _ name: String) throws -> [UInt8] {
        let result = ProcessRunner().run(
            "/usr/bin/python3",
            [
                "-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
                zip, name,
            ])
        guard result.status == 0 else { throw RigError(description: "cannot read \(name) from \(zip)") }
        return result.stdout
    }

    static let secureDevice = ["--kind", "secure", "--sd-id", "0x0101", "--key", publicKey]
    static let blinky: @Sendable () throws -> [String: [UInt8]] = {
        ["application.bin": try file(firmware + "/blinky-pca10040.bin")]
    }

    static let inputs: [Input] = [
        Input(
            label: "Secure package", simulate: secureDevice,
            upload: ["--target", peripheral, packages + "/nrfutil617-blinky-signed.zip"], expected: blinky),
        Input(
            label: "legacy package", simulate: ["--kind", "legacy", "--sd-id", "0x0101"],
            upload: ["--target", peripheral, packages + "/adafruit-blinky-dfu05.zip"], expected: blinky),
        Input(
            label: "multi-part package", simulate: secureDevice,
            upload: ["--target", peripheral, packages + "/nrfutil617-sd-bl-app-signed.zip"],
            expected: {
                let combined = try zipMember(packages + "/nrfutil617-sd-bl-app-signed.zip", "sd_bl.bin")
                return [
                    "softdevice.bin": Array(combined[..<12288]), "bootloader.bin": Array(combined[12288...]),
                    "application.bin": try file(firmware + "/blinky-pca10040.bin"),
                ]
            }),
        Input(
            label: ".hex", simulate: secureDevice,
            upload: [
                "--target", peripheral, firmware + "/blinky-pca10040.hex", "--sd-req", "0x0101", "--key", privateKey,
            ],
            expected: blinky),
        Input(
            label: ".bin", simulate: secureDevice,
            upload: [
                "--target", peripheral, firmware + "/blinky-pca10040.bin", "--sd-req", "0x0101", "--key", privateKey,
            ],
            expected: blinky),
        Input(
            label: "catalog id, found by name", simulate: secureDevice,
            upload: ["--name", "DfuTarg", "blinky-pca10040", "--key", privateKey], expected: blinky),
    ]

    private static func upload(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--adapter", "hci0"] + arguments,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    /// What the simulated device activated, by file name.
    private static func savedImages(in directory: TemporaryDirectory) throws -> [String: [UInt8]] {
        var images: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            images[name] = try file(directory.file(name))
        }
        return images
    }

    @Test("each kind of input is flashed byte for byte, on both I/O paths", arguments: inputs, IOPath.allCases)
    func uploads(input: Input, path: IOPath) async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path] + input.simulate + path.simulateArguments)
            let result = Self.upload(input.upload + path.uploadArguments, rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(try Self.savedImages(in: images) == input.expected())
            let link =
                path == .acquired
                ? "link: packets via AcquireWrite socket, notifications via D-Bus PropertiesChanged\n"
                : "link: packets via D-Bus WriteValue, notifications via D-Bus PropertiesChanged\n"
            #expect(result.stderrText.contains(link), "\(result.stderrText)")
        }
    }

    @Test("a device that offers no AcquireWrite socket is updated over D-Bus calls instead")
    func fallsBackToDBus() async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            _ = try await rig.startSimulate(
                ["--adapter", "hci1", "--no-acquire", "--save-images", images.path] + Self.secureDevice)
            let result = Self.upload(
                ["--target", Self.peripheral, Self.packages + "/nrfutil617-blinky-signed.zip"], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stderrText.contains(
                    "link: packets via D-Bus WriteValue, notifications via D-Bus PropertiesChanged\n"))
            #expect(try Self.savedImages(in: images) == Self.blinky())
        }
    }

    @Test("a buttonless application is sent to its bootloader, which comes back at address + 1")
    func buttonless() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: Self.bootloaderAddress)
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                [
                    "--adapter", "hci1", "--kind", "buttonless", "--sd-id", "0x0101", "--key", Self.publicKey,
                    "--save-images", images.path,
                ])
            let result = Self.upload(
                ["--target", Self.peripheral, Self.packages + "/nrfutil617-blinky-signed.zip"], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(simulator.lines.contains { $0.contains("on hci2 (\(Self.bootloaderAddress))") })
            #expect(try Self.savedImages(in: images) == Self.blinky())
        }
    }

    @Test("a link lost in the middle of an object is resumed where the device stopped")
    func resumeAfterDisconnect() async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path, "--sim-fault", "disconnect@6000"]
                    + Self.secureDevice)
            let result = Self.upload(
                ["--target", Self.peripheral, Self.packages + "/nrfutil617-selftest-signed.zip", "--json"], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(result.stdoutText.contains(#""message":"link lost; reconnecting (1 of 3)""#))
            #expect(result.stdoutText.contains(#""message":"resuming data at offset 6048""#), "\(result.stdoutText)")
            #expect(
                try Self.savedImages(in: images) == [
                    "application.bin": try Self.file(Self.firmware + "/selftest-pca10040.bin")
                ])
        }
    }

    @Test("a target that dies mid-transfer ends the upload with exit 75, and a retry succeeds")
    func targetKilled() async throws {
        try await BlueZRig.with { rig in
            let firstRun = try await rig.startSimulate(["--adapter", "hci1"] + Self.secureDevice)
            let child = ProcessRunner().start(
                TestPaths.nrfloader,
                [
                    "upload", "--adapter", "hci0", "--target", Self.peripheral,
                    Self.packages + "/nrfutil617-selftest-signed.zip",
                ],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            // Killed once the first 4 KiB data object is executed (the init packet's Execute comes first): the
            // transfer is under way. A thread of its own watches, so that busy test threads cannot delay the kill.
            let killed = KillSwitch()
            Thread {
                let deadline = ContinuousClock.now.advanced(by: .seconds(30))
                while ContinuousClock.now < deadline {
                    if firstRun.log.components(separatedBy: "notify secure control point: 60 04 01").count >= 3 {
                        firstRun.stop()
                        killed.fired.withLock { $0 = true }
                        return
                    }
                    usleep(5000)
                }
            }.start()
            let result = child.wait()
            #expect(killed.fired.withLock { $0 }, "\(firstRun.log)")
            #expect(result.status == 75, "\(result.stderrText)")
            #expect(result.stderrText.hasSuffix("\n"))
            #expect(result.stderrText.split(separator: "\n").last?.hasPrefix("Error: ") == true, "\(result.stderrText)")

            let images = try TemporaryDirectory()
            let secondRun = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
            let retry = Self.upload(
                ["--target", Self.peripheral, Self.packages + "/nrfutil617-selftest-signed.zip"], rig: rig)
            #expect(retry.status == 0, "\(retry.stderrText)\nsimulate:\n\(secondRun.log)")
            #expect(
                try Self.savedImages(in: images) == [
                    "application.bin": try Self.file(Self.firmware + "/selftest-pca10040.bin")
                ])
        }
    }

    @Test("two devices advertising the same name are listed, not guessed between")
    func ambiguousName() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: Self.bootloaderAddress)
            for adapter in ["hci1", "hci2"] {
                _ = try await rig.startSimulate(["--adapter", adapter, "--name", "Twin"] + Self.secureDevice)
            }
            let result = Self.upload(["--name", "Twin", "blinky-pca10040"], rig: rig)
            #expect(result.status == 64, "\(result.stderrText)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText.hasPrefix("Error: 2 devices advertise the name 'Twin' on hci0: "))
            #expect(result.stderrText.contains(Self.peripheral) && result.stderrText.contains(Self.bootloaderAddress))
            #expect(result.stderrText.hasSuffix("choose one with --target ADDRESS\n"))
        }
    }

    @Test("--wait waits for a target that starts advertising later")
    func waitsForTarget() async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            let child = ProcessRunner().start(
                TestPaths.nrfloader,
                [
                    "upload", "--adapter", "hci0", "--target", Self.peripheral, "--wait", "--timeout", "40",
                    Self.packages + "/nrfutil617-blinky-signed.zip",
                ],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            try await Task.sleep(for: .seconds(3))
            _ = try await rig.startSimulate(["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
            let result = child.wait()
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(try Self.savedImages(in: images) == Self.blinky())
        }
    }

    @Test("upload without BlueZ on the bus exits 69 and says so", .enabled(if: PrivateBus.daemonPath != nil))
    func bluezAbsent() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let result = ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--target", Self.peripheral, "blinky-pca10040", "--sd-req", "0x0101"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText
                == "Error: bluetooth is not available: bluez (org.bluez) is not running on the system bus\n")
    }
}

/// Whether the watcher thread of ``UploadOverBlueZTests/targetKilled()`` killed the target.
private final class KillSwitch: Sendable {
    let fired = Mutex(false)
}

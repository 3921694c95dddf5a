import Foundation
import TestSupport
import Testing

/// `upload`, `scan` and `simulate` against what a real bluetoothd 5.66 on btvirt does and bluezoo does not
/// (testrig.md, "Causes already traced on Rung 2"), each modelled by a quirk of `Tests/Rig/bluezoo_rig.py`.
///
/// The real-bluetoothd tier (a VM) runs the same scenarios on the real stack; these keep each cause in the fast tier.
@Suite("BlueZ 5.66 behaviours", .tags(.integration), .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct BlueZ566QuirkTests {
    static let root = TestPaths.repositoryRoot.path
    static let packages = root + "/Tests/Data/packages"
    static let firmware = root + "/Resources/firmware"
    static let publicKey = packages + "/nrfutil-test-key.pub.pem"
    static let peripheral = "C0:DE:00:00:00:02"
    static let signedBlinky = packages + "/nrfutil617-blinky-signed.zip"
    /// imgtool 2.5.0, ed25519, version 2.0.0, 9656 bytes: Tests/Data/mcuboot/README.md.
    static let smpImage = root + "/Tests/Data/mcuboot/ed25519.bin"
    static let secureDevice = ["--kind", "secure", "--sd-id", "0x0101", "--key", publicKey]

    private static func run(_ command: String, _ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, [command, "--adapter", "hci0"] + arguments,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    private static func blinky() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: firmware + "/blinky-pca10040.bin")))
    }

    private static func saved(_ directory: TemporaryDirectory, _ name: String = "application.bin") -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: directory.file(name)))).map { Array($0) }
    }

    @Test(
        "a connection whose Connected=true is never signalled (or whose services resolved unsignalled) is used",
        arguments: [BlueZRig.Quirk.silentConnected, .unsignalledServicesResolved])
    func unsignalledLink(quirk: BlueZRig.Quirk) async throws {
        try await BlueZRig.with(quirks: [quirk]) { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
            let result = Self.run("upload", ["--target", Self.peripheral, Self.signedBlinky], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)\nrig:\n\(rig.log)")
            #expect(Self.saved(images) == (try Self.blinky()))
        }
    }

    @Test("one advertisement per scan start, the first lost: found by restarting discovery, then via the cached object")
    func oneReportPerScan() async throws {
        try await BlueZRig.with(quirks: [.oneReportPerScan]) { rig in
            for session in 1...2 {
                // A fresh bootloader each time: the first one runs the new application after its update.
                let images = try TemporaryDirectory()
                let simulator = try await rig.startSimulate(
                    ["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
                let result = Self.run("upload", ["--target", Self.peripheral, Self.signedBlinky], rig: rig)
                #expect(result.status == 0, "session \(session): \(result.stderrText)\nsimulate:\n\(simulator.log)")
                #expect(Self.saved(images) == (try Self.blinky()))
                simulator.stop()
            }
        }
    }

    @Test("a device removed while connecting is found again and the connection retried")
    func removedWhileConnecting() async throws {
        try await BlueZRig.with(quirks: [.removedWhileConnecting]) { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
            let result = Self.run("upload", ["--target", Self.peripheral, Self.signedBlinky], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(Self.saved(images) == (try Self.blinky()))
        }
    }

    @Test("simulate takes write commands that come without a \"type\" option, as bluetoothd sends them")
    func untypedServerWrites() async throws {
        try await BlueZRig.with(quirks: [.untypedServerWrites]) { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--save-images", images.path] + Self.secureDevice)
            let result = Self.run(
                "upload", ["--target", Self.peripheral, "--no-acquire", Self.signedBlinky], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(Self.saved(images) == (try Self.blinky()))
        }
    }

    @Test(
        "an AcquireNotify bluetoothd would never answer holds no upload: notifications come through StartNotify",
        arguments: [false, true])
    func acquireNotifyTrap(smp: Bool) async throws {
        try await BlueZRig.with(quirks: [.acquireNotifyTrap]) { rig in
            let images = try TemporaryDirectory()
            let device = smp ? ["--kind", "smp", "--flash", "instant", "--exit-after", "1"] : Self.secureDevice
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--save-images", images.path] + device)
            let input = smp ? Self.smpImage : Self.signedBlinky
            let result = Self.run("upload", ["--target", Self.peripheral, "--timeout", "5", input], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)\nrig:\n\(rig.log)")
            #expect(!result.stderrText.contains("reconnecting"), "\(result.stderrText)")
            if !smp { #expect(Self.saved(images) == (try Self.blinky())) }
        }
    }

    @Test(
        "notifications bluetoothd still holds for a failed AcquireNotify end the upload in one line: restart bluetooth",
        arguments: [false, true])
    func notifyAcquired(smp: Bool) async throws {
        try await BlueZRig.with(quirks: [.notifyAcquired]) { rig in
            let images = try TemporaryDirectory()
            let device = smp ? ["--kind", "smp", "--flash", "instant"] : Self.secureDevice
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--save-images", images.path] + device)
            let input = smp ? Self.smpImage : Self.signedBlinky
            let result = Self.run("upload", ["--target", Self.peripheral, input], rig: rig)
            #expect(result.status == 69, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(!result.stderrText.contains("reconnecting"), "\(result.stderrText)")
            let role = smp ? "smp" : "secureControlPoint"
            let lastLine = result.stderrText.split(separator: "\n").last.map(String.init) ?? ""
            #expect(
                lastLine.hasSuffix(
                    "bluetoothd refuses notifications on the \(role) characteristic of \(Self.peripheral) "
                        + "(NotPermitted 'Notify acquired'): an AcquireNotify holds them, another program's or one "
                        + "whose descriptor write failed, which a bluetoothd before 5.84 never releases; close the "
                        + "other program or restart bluetooth ('sudo systemctl restart bluetooth') and try again"),
                "\(lastLine)")
        }
    }

    @Test("RSSI 127 is \"not available\": scan shows none, and it never passes --rssi")
    func rssiUnavailable() async throws {
        try await BlueZRig.with(quirks: [.rssiUnavailable]) { rig in
            try rig.startPeripheral(adapter: "hci1", name: "DfuTarg", serviceUUIDs: [secureDFUService])
            let listed = Self.run("scan", ["--timeout", "3", "--json"], rig: rig)
            #expect(listed.status == 0, "\(listed.stderrText)")
            #expect(
                listed.stdoutText
                    == #"{"address":"C0:DE:00:00:00:02","dfu":["secure"],"event":"device","name":"DfuTarg","rssi":null,"schema":1}"#
                    + "\n" + #"{"adapter":"hci0","devices":1,"event":"result","schema":1,"seconds":3}"# + "\n")
            let filtered = Self.run("scan", ["--timeout", "3", "--rssi=-120"], rig: rig)
            #expect(filtered.status == 0, "\(filtered.stderrText)")
            #expect(filtered.stdoutText == "ADDRESS  NAME  RSSI  DFU\n", "\(filtered.stdoutText)")
        }
    }

    @Test("a buttonless bootloader that keeps the application's address (nothing at address + 1) is followed")
    func buttonlessAtSameAddress() async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                [
                    "--adapter", "hci1", "--kind", "buttonless", "--sd-id", "0x0101", "--key", Self.publicKey,
                    "--save-images", images.path,
                ])
            let result = Self.run("upload", ["--target", Self.peripheral, Self.signedBlinky], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            #expect(Self.saved(images) == (try Self.blinky()))
        }
    }

    @Test("a default simulate takes the catalog's own images, and --save-images creates its directory")
    func defaultSimulateTakesCatalogImages() async throws {
        try await BlueZRig.with { rig in
            let parent = try TemporaryDirectory()
            let images = parent.file("images")
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--save-images", images])
            let result = Self.run("upload", ["--target", Self.peripheral, "selftest-pca10040"], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            let expected = Array(try Data(contentsOf: URL(fileURLWithPath: Self.firmware + "/selftest-pca10040.bin")))
            #expect(
                (try? Data(contentsOf: URL(fileURLWithPath: images + "/application.bin"))).map { Array($0) } == expected
            )
        }
    }

    @Test("a catalog id without --dfu reaches a legacy simulate as a legacy init packet (the 'init write of 3 bytes')")
    func legacyCatalogImage() async throws {
        try await BlueZRig.with(quirks: [.untypedServerWrites, .silentConnected]) { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--kind", "legacy", "--save-images", images.path])
            let result = Self.run("upload", ["--target", Self.peripheral, "blinky-pca10028"], rig: rig)
            #expect(result.status == 0, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            let expected = Array(try Data(contentsOf: URL(fileURLWithPath: Self.firmware + "/blinky-pca10028.bin")))
            #expect(Self.saved(images) == expected)
        }
    }

    @Test("--timeout bounds the wait for an ATT write response, and the message gives that figure")
    func timeoutBoundsWriteResponse() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--sim-fault", "stall@6"] + Self.secureDevice)
            let result = Self.run(
                "upload", ["--target", Self.peripheral, "--timeout", "2", "--retries", "1", Self.signedBlinky], rig: rig
            )
            #expect(result.status == 75, "\(result.stderrText)\nsimulate:\n\(simulator.log)")
            let lastLine = result.stderrText.split(separator: "\n").last.map(String.init) ?? ""
            #expect(lastLine.hasPrefix("Error: transport failed: write to secureControlPoint: "), "\(lastLine)")
            #expect(lastLine.hasSuffix(": no reply to 'WriteValue' within 2.0 seconds"), "\(lastLine)")
        }
    }

    @Test("a device that never appears is given the 15 s --help promises, and the messages say so")
    func missingDeviceWait() async throws {
        try await BlueZRig.with { rig in
            let byAddress = Self.run("upload", ["--target", "C0:DE:00:00:00:09", "selftest-pca10040"], rig: rig)
            #expect(byAddress.status == 69, "\(byAddress.stderrText)")
            // Discovery restarts every second, so the message counts about 15 starts; nothing else advertised.
            let message = byAddress.stderrText
            #expect(message.contains("no device advertising as C0:DE:00:00:00:09 on hci0 within 15 s ("), "\(message)")
            #expect(message.hasSuffix(" discovery starts, 0 other devices seen)\n"), "\(message)")
            let starts = message.split(separator: "(").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            #expect((8...16).contains(starts), "\(message)")
            let byName = Self.run("upload", ["--name", "Nobody", "selftest-pca10040"], rig: rig)
            #expect(byName.status == 69, "\(byName.stderrText)")
            #expect(
                byName.stderrText
                    == "Error: no device advertising the name 'Nobody' seen on hci0 in 15 s (--wait waits longer)\n")
        }
    }
}

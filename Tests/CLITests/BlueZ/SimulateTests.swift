import BlueZ
import BlueZTransport
import DBus
import Foundation
import TestSupport
import Testing

/// `nrfloader simulate` on the rig: a third-party central (bleak, Tests/Rig/bleak_dfu_client.py) and plain D-Bus
/// calls update and inspect it through bluezoo, and `scan` finds it.
@Suite("nrfloader simulate", .tags(.integration))
struct SimulateTests {
    private static let packages = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/packages").path
    /// nrfutil 6.1.7's signed blinky package: hw 52, sd-req 0x0101, a 140-byte .dat (Tests/Data/packages/README.md).
    private static let signedBlinky = packages + "/nrfutil617-blinky-signed.zip"
    private static let unsignedBlinky = packages + "/nrfutil617-blinky-unsigned.zip"
    /// The public half of the key that signed it.
    private static let packageKey = packages + "/nrfutil-test-key.pub.pem"
    /// The key itself: `--key` takes the public part of a private key too.
    private static let packagePrivateKey = packages + "/nrfutil-test-key.pem"
    /// The image inside both blinky packages.
    private static let blinkyImage = TestPaths.repositoryRoot.appendingPathComponent(
        "Resources/firmware/blinky-pca10040.bin"
    ).path
    private static let peripheral = "C0:DE:00:00:00:02"
    private static let ready = BlueZRig.isAvailable

    private func bleak(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            BlueZRig.venvPython, [BlueZRig.rigDirectory + "/bleak_dfu_client.py", "--adapter", "hci0"] + arguments,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    private func nrfloader(_ arguments: [String], bus: String) -> ProcessResult {
        ProcessRunner().run(TestPaths.nrfloader, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
    }

    private func failureReport(_ result: ProcessResult, _ simulator: SimulateProcess, _ rig: BlueZRig) -> Comment {
        let text =
            "\(result.stdoutText)\(result.stderrText)\nsimulate stdout:\n\(simulator.lines.joined(separator: "\n"))"
            + "\nsimulate stderr:\n\(simulator.log)\nrig log:\n\(rig.log)"
        return Comment(rawValue: text)
    }

    @Test(
        "bleak runs the Secure DFU init packet exchange against the simulated bootloader and Execute succeeds",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func bleakInitPacketExchange() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--key", Self.packageKey, "--sd-id", "0x0101"])
            let result = bleak(["--address", Self.peripheral, "--package", Self.signedBlinky], rig: rig)
            #expect(result.status == 0, failureReport(result, simulator, rig))
            let exchange = result.stdoutText
            // Set PRN to 0: success.
            #expect(exchange.contains("> 02 00 00\n< 60 02 01\n"))
            // Select command: max size 256 (INIT_COMMAND_MAX_SIZE), offset 0, CRC 0.
            #expect(exchange.contains("> 06 01\n< 60 06 01 00 01 00 00 00 00 00 00 00 00 00 00\n"))
            // Create command object, 140 bytes (the .dat).
            #expect(exchange.contains("> 01 01 8C 00 00 00\n< 60 01 01\n"))
            // Calculate checksum: offset 140, CRC-32 0x4535E0AA, which the script checked against zlib.crc32.
            #expect(exchange.contains("> 03\n< 60 03 01 8C 00 00 00 AA E0 35 45\n"))
            #expect(exchange.contains("matches zlib.crc32"))
            // Execute: the signature verifies with the bootloader's key.
            #expect(exchange.contains("> 04\n< 60 04 01\n"))
            #expect(simulator.log.contains("init packet accepted: application, 604 bytes"))
        }
    }

    @Test(
        "a bootloader holding another key answers Execute with Invalid Object",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func otherKeyRejected() async throws {
        try await BlueZRig.with { rig in
            let otherKey = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/keys/test-public-key.pem").path
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--key", otherKey, "--sd-id", "0x0101"])
            let result = bleak(["--address", Self.peripheral, "--package", Self.signedBlinky], rig: rig)
            #expect(result.status == 1, failureReport(result, simulator, rig))
            // Execute: 0x05, Invalid Object (nrf_dfu_validation.c on a signature that does not verify).
            #expect(result.stdoutText.hasSuffix("> 04\n< 60 04 05\n"))
            #expect(result.stderrText == "bleak_dfu_client: request 04 failed with result 0x05\n")
        }
    }

    @Test(
        "a second link finds the init packet kept and notifications working again (StartNotify, WriteValue)",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func secondLink() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--no-acquire", "--sd-id", "0x0101"])
            let first = bleak(["--address", Self.peripheral, "--package", Self.signedBlinky], rig: rig)
            #expect(first.status == 0, failureReport(first, simulator, rig))
            let second = bleak(["--address", Self.peripheral, "--package", Self.signedBlinky], rig: rig)
            #expect(second.status == 0, failureReport(second, simulator, rig))
            // Select command on the second link: offset 140 and the CRC of the executed init packet.
            #expect(second.stdoutText.contains("> 06 01\n< 60 06 01 00 01 00 00 8C 00 00 00 AA E0 35 45\n"))
            #expect(simulator.log.components(separatedBy: "connected: 00:11:22:33:44:01, MTU 247").count == 3)
        }
    }

    @Test("a --sim-fault forced response reaches the central", .enabled(if: ready, BlueZRig.unavailableReason))
    func forcedResponse() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--sim-fault", "respond@06:04"])
            let result = bleak(["--address", Self.peripheral, "--package", Self.signedBlinky], rig: rig)
            #expect(result.status == 1, failureReport(result, simulator, rig))
            // Select answered with 0x04, Insufficient Resources, as the fault says.
            #expect(result.stdoutText.hasSuffix("> 06 01\n< 60 06 04\n"))
            #expect(simulator.log.contains("fault: forced response 60 06 04 to 06 01"))
        }
    }

    @Test(
        "bleak updates the application through AcquireNotify and an AcquireWrite socket; the saved image is the package's",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func bleakFullUpdate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--acquire-write", "--key", Self.packagePrivateKey, "--sd-id", "0x0101",
                "--save-images",
                directory.path,
                "--exit-after", "1",
            ])
            let result = bleak(
                ["--address", Self.peripheral, "--package", Self.signedBlinky, "--firmware", "--acquire-notify"],
                rig: rig)
            #expect(result.status == 0, failureReport(result, simulator, rig))
            #expect(result.stdoutText.contains("notifications on: AcquireNotify\n"))
            // Data object: 604 bytes, CRC-32 0xA4B30F4B over the whole image; Execute activates it.
            #expect(
                result.stdoutText.contains(
                    "< 60 03 01 5C 02 00 00 4B 0F B3 A4\nchecksum: offset 604, CRC-32 0xA4B30F4B matches zlib.crc32\n"
                        + "> 04\n< 60 04 01\ndevice disconnected after activation\n"))
            #expect(try await simulator.exit(within: .seconds(20)) == 0, "\(simulator.log)")
            #expect(
                try directory.read("application.bin")
                    == Array(try Data(contentsOf: URL(fileURLWithPath: Self.blinkyImage))))
            #expect(
                simulator.lines == [
                    "ready: secure bootloader 'DfuTarg' on hci1 (C0:DE:00:00:00:02)",
                    "activated: application, 604 bytes, CRC-32 0xA4B30F4B",
                    "advertising: application 'Nordic_App' on hci1 (C0:DE:00:00:00:02)",
                ])
            #expect(simulator.log.contains("no adapter has it, so it stays on hci1"))
        }
    }

    @Test(
        "with --no-acquire bleak writes through WriteValue and StartNotify, and --json prints one event per line",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func noAcquireWithJSON() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--no-acquire", "--json", "--sd-id", "0x0101",
            ])
            let result = bleak(
                ["--address", Self.peripheral, "--package", Self.unsignedBlinky, "--firmware"], rig: rig)
            #expect(result.status == 0, failureReport(result, simulator, rig))
            _ = try await simulator.line { $0.contains(#""event":"advertising""#) }
            let events = try simulator.lines.map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            #expect(events.allSatisfy { $0["schema"] as? Int == 1 })
            #expect(
                events.compactMap { $0["event"] as? String } == [
                    "ready", "connected", "activated", "disconnected", "advertising",
                ])
            #expect(events.first?["services"] as? [String] == ["0000FE59-0000-1000-8000-00805F9B34FB"])
            #expect(events.first?["address"] as? String == Self.peripheral)
            let images = try #require(
                events.first { $0["event"] as? String == "activated" }?["images"] as? [[String: Any]])
            #expect(images.first?["type"] as? String == "application")
            #expect(images.first?["size"] as? Int == 604)
            #expect(images.first?["crc32"] as? String == "0xA4B30F4B")
            #expect(!simulator.log.contains("AcquireWrite"))
        }
    }

    @Test(
        "a buttonless application resets into its bootloader on the adapter at address + 1, and back after the update",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func buttonlessMovesToNextAddress() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:03")
            let simulator = try await rig.startSimulate(
                ["--adapter", "hci1", "--kind", "buttonless", "--sd-id", "0x0101", "--exit-after", "1"])
            let result = bleak(
                [
                    "--buttonless", "--address", Self.peripheral, "--bootloader-address", "C0:DE:00:00:00:03",
                    "--package", Self.unsignedBlinky, "--firmware",
                ], rig: rig)
            #expect(result.status == 0, failureReport(result, simulator, rig))
            // Buttonless Enter Bootloader (01), indicated response 20 01 01.
            #expect(result.stdoutText.contains("> 01\n< 20 01 01\napplication reset into its bootloader\n"))
            #expect(try await simulator.exit(within: .seconds(20)) == 0, "\(simulator.log)")
            #expect(
                simulator.lines == [
                    "ready: application 'Nordic_App' on hci1 (C0:DE:00:00:00:02)",
                    "advertising: secure bootloader 'DfuTarg' on hci2 (C0:DE:00:00:00:03)",
                    "activated: application, 604 bytes, CRC-32 0xA4B30F4B",
                    "advertising: application 'Nordic_App' on hci1 (C0:DE:00:00:00:02)",
                ])
        }
    }

    @Test(
        "scan lists running simulators with their names and protocols, and only the named one with --name",
        .enabled(if: ready, BlueZRig.unavailableReason))
    func scanFindsSimulator() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:03")
            _ = try await rig.startSimulate(["--adapter", "hci1", "--name", "SimDfu"])
            _ = try await rig.startSimulate(["--adapter", "hci2", "--kind", "legacy", "--name", "OldDfu"])
            let all = nrfloader(["scan", "--adapter", "hci0", "--timeout", "4"], bus: rig.bus.address)
            #expect(all.status == 0, "\(all.stderrText)\nrig log:\n\(rig.log)")
            #expect(all.stdoutText.contains("C0:DE:00:00:00:02  SimDfu"))
            #expect(all.stdoutText.contains("C0:DE:00:00:00:03  OldDfu"))
            let named = nrfloader(
                ["scan", "--adapter", "hci0", "--timeout", "3", "--json", "--name", "^SimDfu$"], bus: rig.bus.address)
            #expect(named.status == 0, "\(named.stderrText)")
            let devices = try named.stdoutText.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }.filter { $0["event"] as? String == "device" }
            #expect(devices.count == 1, "\(named.stdoutText)")
            #expect(devices.first?["name"] as? String == "SimDfu")
            #expect(devices.first?["address"] as? String == Self.peripheral)
            #expect(devices.first?["dfu"] as? [String] == ["secure"])
        }
    }

    /// What a central finds under its device object after `Connect`, per kind.
    struct Database: Sendable, CustomTestStringConvertible {
        var kind: String
        /// Characteristic UUID → flags.
        var characteristics: [String: [String]]
        /// `GattCharacteristic1.MTU`: 247 as asked for, 23 for a legacy bootloader.
        var mtu: Int
        var testDescription: String { kind }
    }

    static let databases = [
        Database(
            kind: "secure",
            characteristics: [
                "8EC90001-F315-4F60-9FB8-838830DAEA50": ["write", "notify"],
                "8EC90002-F315-4F60-9FB8-838830DAEA50": ["write-without-response"],
            ], mtu: 247),
        Database(
            kind: "legacy",
            characteristics: [
                "00001531-1212-EFDE-1523-785FEABCD123": ["write", "notify"],
                "00001532-1212-EFDE-1523-785FEABCD123": ["write-without-response"],
                "00001534-1212-EFDE-1523-785FEABCD123": ["read"],
            ], mtu: 23),
    ]

    @Test(
        "a central sees the simulated GATT database under its device object after Connect, and its ATT errors",
        .enabled(if: ready, BlueZRig.unavailableReason), arguments: databases)
    func centralSeesDatabase(_ expected: Database) async throws {
        try await BlueZRig.with { rig in
            _ = try await rig.startSimulate(["--adapter", "hci1", "--kind", expected.kind])
            let client = try await BlueZClient.connect(.address(rig.bus.address))
            defer { client.connection.close() }
            let device = "/org/bluez/hci0/dev_C0_DE_00_00_00_02"
            let events = try await client.events()
            try await client.startDiscovery(on: try await client.adapter(named: "hci0"))
            let found = try await withDeadline(.seconds(20)) {
                for await event in events {
                    if case .interfacesAdded(device, _) = event { return true }
                }
                return false
            }
            #expect(found == true, "\(rig.log)")
            try await client.call(path: device, interface: "org.bluez.Device1", member: "Connect")
            let characteristics = try await client.managedObjects().characteristics.filter {
                $0.path.hasPrefix(device + "/")
            }
            #expect(
                Dictionary(uniqueKeysWithValues: characteristics.map { ($0.uuid, $0.flags) })
                    == expected.characteristics)
            #expect(characteristics.allSatisfy { $0.mtu == expected.mtu })
            let controlPoint = try #require(characteristics.first { $0.flags.contains("notify") })
            // A control point write before notifications are enabled: ATT 0xFD (CCCD improperly configured).
            await #expect(
                throws: BlueZError.failed(
                    .errorReply(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd"))
            ) {
                try await client.call(
                    path: controlPoint.path, interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
                    arguments: [.bytes([0x01]), .propertyDictionary(["type": .string("request")])])
            }
            if let version = characteristics.first(where: { $0.flags == ["read"] }) {
                let value = try await client.call(
                    path: version.path, interface: "org.bluez.GattCharacteristic1", member: "ReadValue",
                    arguments: [.propertyDictionary([:])])
                // DFU version 0.8 (minor, major): an SDK 11 bootloader.
                #expect(value == [.bytes([0x08, 0x00])])
            }
        }
    }

    @Test(
        "simulate without BlueZ on the bus exits 69 and says so in one line", .enabled(if: PrivateBus.daemonPath != nil)
    )
    func bluezAbsent() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let result = nrfloader(["simulate"], bus: bus.address)
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText
                == "Error: bluetooth is not available: bluez (org.bluez) is not running on the system bus\n")
    }

    @Test("simulate on an adapter that does not exist exits 69", .enabled(if: ready, BlueZRig.unavailableReason))
    func unknownAdapter() async throws {
        try await BlueZRig.with { rig in
            let result = nrfloader(["simulate", "--adapter", "hci7"], bus: rig.bus.address)
            #expect(result.status == 69)
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText == "Error: no bluetooth adapter named 'hci7'\n")
        }
    }

    @Test("SIGTERM ends simulate with status 0", .enabled(if: ready, BlueZRig.unavailableReason))
    func terminates() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1"])
            simulator.send(SIGTERM)
            #expect(try await simulator.exit(within: .seconds(10)) == 0, "\(simulator.log)")
            #expect(!simulator.log.contains("Error"))
        }
    }
}

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader upload` of signed MCUboot images over SMP through BlueZ, against `nrfloader simulate --kind smp`, both
/// run as a user runs them on the rig's private bus with bluezoo in between.
@Suite("SMP over BlueZ", .tags(.integration), .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct SMPOverBlueZTests {
    static let root = TestPaths.repositoryRoot.path
    /// imgtool 2.5.0, ECDSA P-256, version 1.4.0+130, 133,000-byte body: Tests/Data/smp-ble/README.md.
    static let bigImage = root + "/Tests/Data/smp-ble/ecdsa-p256-130k.bin"
    /// imgtool 2.5.0, ed25519, version 2.0.0, 9656 bytes: Tests/Data/mcuboot/README.md.
    static let smallImage = root + "/Tests/Data/mcuboot/ed25519.bin"
    static let peripheral = "C0:DE:00:00:00:02"

    static func file(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func upload(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, ["upload", "--adapter", "hci0"] + arguments,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    private static func report(_ result: ProcessResult, _ simulator: SimulateProcess, _ rig: BlueZRig) -> Comment {
        Comment(
            rawValue: "upload stdout:\n\(result.stdoutText)\nupload stderr:\n\(result.stderrText)\nsimulate stdout:\n"
                + simulator.lines.joined(separator: "\n") + "\nsimulate stderr:\n\(simulator.log)\nrig log:\n\(rig.log)"
        )
    }

    private static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test(
        "a 130 KiB signed image: test, reset, reconnect, confirm; slot 0 holds it byte for byte, slot 1 the old one",
        arguments: [false, true])
    func testAndConfirm(acquireWrite: Bool) async throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(
                [
                    "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--save-images", images.path,
                    "--exit-after", "1",
                ] + (acquireWrite ? ["--acquire-write"] : []))
            let image = try Self.file(Self.bigImage)
            let result = Self.upload(["--target", Self.peripheral, Self.bigImage], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            #expect(
                result.stdoutText
                    == "image 1.4.0.130 (hash d6b1b0440f77baf2…) confirmed by the device: slot 0, active confirmed; "
                    + "\(image.count) bytes uploaded\n", Self.report(result, simulator, rig))
            #expect(
                result.stderrText.contains(
                    "uploading \(Self.bigImage) (MCUboot image 1.4.0+130, \(image.count) bytes) to "
                        + "\(Self.peripheral) via hci0 over SMP"))
            #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            #expect(
                simulator.lines == [
                    "ready: smp 'Zephyr' on hci1 (C0:DE:00:00:00:02)",
                    "activated: boot 2: swapped to 1.4.0+130 (test)",
                    "advertising: smp 'Zephyr' on hci1 (C0:DE:00:00:00:02)",
                ])
            let slot0 = try Self.file(images.file("slot0.bin"))
            let slot1 = try Self.file(images.file("slot1.bin"))
            #expect(slot0.count == 0x4_0000 && slot1.count == 0x4_0000)
            #expect(slot0.prefix(image.count) == ArraySlice(image))
            // Confirmed: MCUboot's trailer at the end of slot 0 says image_ok (1 at -24) and the magic.
            #expect(slot0[slot0.count - 24] == 1)
            // The image that ran before (0.0.1, 4096 bytes of 0xA5 after a 32-byte header) was swapped into slot 1.
            #expect(slot1[32..<(32 + 4096)].allSatisfy { $0 == 0xA5 })
            #expect(simulator.log.contains("simulate: 1 activation(s); image upload: "))
            #expect(simulator.log.contains("\(image.count) bytes written, 0 resume probe(s), 0 stale chunk(s)"))
        }
    }

    @Test("a disconnect mid-upload resumes at the device's offset: no byte is sent twice beyond it; --json checked")
    func resumeAfterDisconnect() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--sim-fault", "disconnect@60000",
                "--exit-after", "1", "--json",
            ])
            let image = try Self.file(Self.bigImage)
            let result = Self.upload(["--target", Self.peripheral, Self.bigImage, "--json"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            let events = try Self.jsonLines(result.stdoutText)
            #expect(events.allSatisfy { $0["schema"] as? Int == 1 })
            #expect(events.first?["event"] as? String == "begin")
            #expect(events.first?["protocol"] as? String == "smp")
            let last = try #require(events.last)
            #expect(events.filter { $0["event"] as? String == "result" }.count == 1)
            #expect(last["event"] as? String == "result")
            #expect(last["state"] as? String == "confirmed")
            #expect(last["bytes_uploaded"] as? Int == image.count)
            let state = try #require(last["image"] as? [String: Any])
            // The version as Zephyr's image state shows it (major.minor.revision.build).
            #expect(state["version"] as? String == "1.4.0.130")
            #expect(state["slot"] as? Int == 0)
            #expect(state["active"] as? Bool == true && state["confirmed"] as? Bool == true)
            let smp = try #require(last["smp"] as? [String: Any])
            // The link loss (the reconnection after the reset is part of test-and-confirm, not counted).
            #expect(smp["reconnects"] as? Int == 1, "\(smp)")

            #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            let served = try Self.jsonLines(simulator.lines.joined(separator: "\n"))
            let tally = try #require(served.last?["upload"] as? [String: Any], "\(simulator.lines)")
            // Every image byte reached flash exactly once, and no chunk came at an offset the device had passed.
            #expect(tally["bytes_written"] as? Int == image.count, "\(tally)")
            #expect(tally["stale_chunks"] as? Int == 0, "\(tally)")
            #expect(tally["resume_probes"] as? Int == 0, "\(tally)")
            // After the link loss the first upload request is at the offset the device last answered with.
            let log = simulator.log.split(separator: "\n").map(String.init)
            let fault = try #require(log.firstIndex { $0.hasPrefix("fault: link dropped after") }, "\(simulator.log)")
            let answered = try #require(log[..<fault].last { $0.contains("group 1 id 1 ") }?.split(separator: " ").last)
            let resumed = try #require(log[fault...].first { $0.hasPrefix("> write group 1 id 1 ") })
            #expect(resumed.contains(" off \(answered) data "), "answered \(answered), then: \(resumed)")
        }
    }

    @Test("a device that reboots mid-upload loses the upload (Zephyr keeps it in RAM): it starts again at offset 0")
    func restartAfterReboot() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--sim-fault", "reboot@60000",
                "--exit-after", "1", "--json",
            ])
            let image = try Self.file(Self.bigImage)
            let result = Self.upload(["--target", Self.peripheral, Self.bigImage, "--json"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            let last = try #require(try Self.jsonLines(result.stdoutText).last)
            #expect(last["state"] as? String == "confirmed", "\(last)")
            #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            let served = try Self.jsonLines(simulator.lines.joined(separator: "\n"))
            let tally = try #require(served.last?["upload"] as? [String: Any], "\(simulator.lines)")
            // The chunks already in flight at the old offset (at most the window of 3) are answered with off 0, the
            // device's truth; then the upload starts again at 0 with the length and hash, and runs to the end.
            let written = try #require(tally["bytes_written"] as? Int)
            #expect(written > image.count && written < 2 * image.count, "\(tally)")
            let stale = try #require(tally["stale_chunks"] as? Int)
            #expect((1...3).contains(stale), "\(tally)")
            let log = simulator.log.split(separator: "\n").map(String.init)
            let fault = try #require(log.firstIndex { $0.hasPrefix("fault: device resets") }, "\(simulator.log)")
            let resumed = try #require(log[fault...].first { $0.hasPrefix("> write group 1 id 1 ") })
            #expect(resumed.hasSuffix("< 15 bytes off 0"), "\(resumed)")
            #expect(log[fault...].contains { $0.contains(" off 0 len \(image.count) ") }, "\(simulator.log)")
        }
    }

    @Test(
        "at ATT MTU 23 requests span several writes and answers several notifications; lost and doubled answers are survived"
    )
    func smallMTUAndLostAnswers() async throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--mtu", "23", "--save-images",
                images.path, "--exit-after", "1", "--sim-fault", "drop-notification@5", "--sim-fault",
                "duplicate-notification@9",
            ])
            let image = try Self.file(Self.smallImage)
            // --timeout bounds the wait for the lost answer: the link is dropped and the upload resumed after 3 s.
            let result = Self.upload(
                ["--target", Self.peripheral, Self.smallImage, "--json", "--timeout", "3"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            #expect(
                try Self.jsonLines(result.stdoutText).contains {
                    ($0["message"] as? String)?.hasPrefix("no answer within 3.0 seconds waiting for") == true
                }, Self.report(result, simulator, rig))
            let last = try #require(try Self.jsonLines(result.stdoutText).last)
            #expect(last["state"] as? String == "confirmed", "\(last)")
            let smp = try #require(last["smp"] as? [String: Any])
            // Chunks sized for 20-byte writes: a request of whole writes within Zephyr's 384-byte buffer.
            #expect((smp["chunk_size"] as? Int ?? 0) < 384, "\(smp)")
            #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            #expect(simulator.log.contains("connected: 00:11:22:33:44:01, MTU 23"))
            #expect(simulator.log.contains("(drop-notification)") && simulator.log.contains("(duplicate-notification)"))
            let slot0 = try Self.file(images.file("slot0.bin"))
            #expect(slot0.prefix(image.count) == ArraySlice(image))
        }
    }

    @Test("two SMP devices updated in one run (--target twice): --json events per device, then a summary")
    func fleet() async throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        defer {
            first.remove()
            second.remove()
        }
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:03")
            let simulators = [
                try await rig.startSimulate([
                    "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--save-images", first.path,
                    "--exit-after", "1",
                ]),
                try await rig.startSimulate([
                    "--adapter", "hci2", "--kind", "smp", "--flash", "instant", "--save-images", second.path,
                    "--exit-after", "1",
                ]),
            ]
            let image = try Self.file(Self.bigImage)
            let result = Self.upload(
                ["--target", Self.peripheral, "--target", "C0:DE:00:00:00:03", Self.bigImage, "--json"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulators[0], rig))
            let events = try Self.jsonLines(result.stdoutText)
            #expect(events.allSatisfy { $0["schema"] as? Int == 1 })
            // Every object but the summary names its device; each device has one begin and one result.
            #expect(events.dropLast().allSatisfy { $0["device"] is String }, "\(result.stdoutText)")
            for address in [Self.peripheral, "C0:DE:00:00:00:03"] {
                let own = events.filter { $0["device"] as? String == address }
                let kinds = own.map { $0["event"] as? String ?? "-" }
                #expect(kinds.filter { $0 == "begin" }.count == 1, "\(address): \(kinds)")
                #expect(kinds.filter { $0 == "result" }.count == 1, "\(address): \(kinds)")
                let outcome = try #require(own.last, "\(address)")
                #expect(outcome["event"] as? String == "result", "\(address): \(kinds)")
                #expect(outcome["state"] as? String == "confirmed", "\(address)")
                #expect(outcome["bytes_uploaded"] as? Int == image.count, "\(address)")
            }
            let summary = try #require(events.last)
            #expect(summary["event"] as? String == "summary")
            #expect(summary["completed"] as? Int == 2 && summary["failed"] as? Int == 0)
            #expect(summary["exit_status"] as? Int == 0)
            for simulator in simulators {
                #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            }
            for directory in [first, second] {
                let slot0 = try Self.file(directory.file("slot0.bin"))
                #expect(slot0.prefix(image.count) == ArraySlice(image))
                #expect(slot0[slot0.count - 24] == 1)
            }
        }
    }

    @Test("Ctrl-C while the device swaps (nRF52 timing, seconds) ends simulate at once, with its slots saved")
    func interruptDuringSwap() async throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--save-images", images.path,
            ])
            let upload = ProcessRunner().start(
                TestPaths.nrfloader,
                ["upload", "--adapter", "hci0", "--target", Self.peripheral, Self.bigImage, "--smp-mode", "test"],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            // The activation line comes when MCUboot starts the swap, which then takes about 12 s for 130 KiB.
            _ = try await simulator.line(within: .seconds(60)) { $0.hasPrefix("activated: ") }
            simulator.send(SIGINT)
            #expect(try await simulator.exit(within: .seconds(5)) == 0, "\(simulator.log)")
            // The upload is left searching for the rebooting device; it is not what this test is about.
            upload.send(SIGKILL)
            _ = upload.wait()
            let slot0 = try Self.file(images.file("slot0.bin"))
            #expect(slot0.prefix(try Self.file(Self.bigImage).count) == ArraySlice(try Self.file(Self.bigImage)))
        }
    }

    @Test(
        "the SMP fault kinds over BlueZ: recovered, or a device refusal with its name",
        arguments: [
            ("stall@20", 0, "fault: device stalled, no answer (stall)"),
            ("drop-packet@12", 0, "fault: request of 384 bytes lost (drop-packet)"),
            ("mtu@64", 0, "connected: 00:11:22:33:44:01, MTU 64"),
            ("respond@01:09", 76, "answered image command 1 with rc 9 (fault)"),
        ])
    func faults(fault: String, status: Int32, simulatorSays: String) async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--sim-fault", fault,
            ])
            let result = Self.upload(["--target", Self.peripheral, Self.smallImage, "--timeout", "3"], rig: rig)
            #expect(result.status == status, Self.report(result, simulator, rig))
            #expect(simulator.log.contains(simulatorSays), Self.report(result, simulator, rig))
            if status == 0 {
                #expect(
                    result.stdoutText.hasSuffix(
                        "confirmed by the device: slot 0, active confirmed; 9656 bytes uploaded\n"))
            } else {
                #expect(
                    result.stderrText.hasSuffix(
                        "Error: device refused image upload: rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT: there is no free slot to "
                            + "place the image)\n"), Self.report(result, simulator, rig))
            }
        }
    }

    @Test("an MCUboot image for a device that offers only nRF5 DFU: one line naming both, exit 69")
    func mcubootImageToDFUDevice() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--kind", "secure"])
            let result = Self.upload(["--target", Self.peripheral, Self.smallImage], rig: rig)
            #expect(result.status == 69, Self.report(result, simulator, rig))
            #expect(
                result.stderrText.hasSuffix(
                    "Error: transport failed: C0:DE:00:00:00:02 offers nRF5 Secure DFU (service FE59), not SMP (MCUmgr service "
                        + "8D53DC1D-1DB7-4CD3-868B-8A527460AA84): an MCUboot image goes over SMP only\n"),
                Self.report(result, simulator, rig))
            #expect(result.stdoutText.isEmpty)
        }
    }

    @Test("a DFU package for a device that offers only SMP: one line naming both, exit 69")
    func dfuPackageToSMPDevice() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--kind", "smp"])
            let package = Self.root + "/Tests/Data/packages/nrfutil617-blinky-signed.zip"
            let result = Self.upload(["--target", Self.peripheral, package], rig: rig)
            #expect(result.status == 69, Self.report(result, simulator, rig))
            #expect(
                result.stderrText.hasSuffix(
                    "C0:DE:00:00:00:02 offers SMP (MCUmgr service 8D53DC1D-1DB7-4CD3-868B-8A527460AA84), not nRF5 DFU "
                        + "(Secure FE59 or legacy 1530): a DFU package or image cannot go to it; give a signed MCUboot "
                        + "image, which goes over SMP\n"), Self.report(result, simulator, rig))
        }
    }

    @Test("scan lists the SMP device with its protocol, in text and --json; upload --name finds it")
    func scanAndName() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--kind", "smp", "--name", "smp-sim"])
            let environment = ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address]
            let json = ProcessRunner().run(
                TestPaths.nrfloader, ["scan", "--adapter", "hci0", "--timeout", "3", "--json"],
                environment: environment)
            #expect(json.status == 0, "\(json.stderrText)")
            #expect(
                json.stdoutText.hasPrefix(
                    #"{"address":"C0:DE:00:00:00:02","dfu":["smp"],"event":"device","name":"smp-sim","rssi":"#),
                "\(json.stdoutText)")
            let text = ProcessRunner().run(
                TestPaths.nrfloader, ["scan", "--adapter", "hci0", "--timeout", "3"], environment: environment)
            #expect(text.status == 0)
            let rows = text.stdoutText.split(separator: "\n")
            #expect(rows.first?.hasPrefix("ADDRESS") == true)
            #expect(rows.count == 2 && rows[1].hasPrefix("C0:DE:00:00:00:02  smp-sim") && rows[1].hasSuffix("smp"))
            let result = Self.upload(
                ["--name", "smp-sim", Self.smallImage, "--smp-mode", "upload-only"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            #expect(result.stdoutText.hasSuffix("uploaded by the device: slot 1, -; 9656 bytes uploaded\n"))
        }
    }
    private static func verb(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, arguments + ["--adapter", "hci0", "--target", peripheral, "--timeout", "10"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    @Test("the mcumgr-style verbs over BlueZ: upload-only, image list, test, reset, list, confirm, echo")
    func verbs() async throws {
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--kind", "smp", "--flash", "instant"])
            let upload = Self.upload(
                ["-q", "--smp-mode", "upload-only", "--target", Self.peripheral, Self.smallImage], rig: rig)
            #expect(upload.status == 0, Self.report(upload, simulator, rig))
            let uploaded = "b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90"
            func slots(_ result: ProcessResult) throws -> [[String: Any]] {
                let object = try #require(try Self.jsonLines(result.stdoutText).last, "\(result.stderrText)")
                return try #require(object["images"] as? [[String: Any]], "\(object)")
            }
            func slot(_ list: [[String: Any]], _ number: Int) -> [String: Any] {
                list.first { $0["slot"] as? Int == number } ?? [:]
            }
            var list = try slots(Self.verb(["image", "list", "--json"], rig: rig))
            #expect(slot(list, 1)["hash"] as? String == uploaded && slot(list, 1)["pending"] as? Bool == false)

            var result = Self.verb(["image", "test", uploaded], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            result = Self.verb(["reset"], rig: rig)
            #expect(result.status == 0 && result.stdoutText == "device reset\n", Self.report(result, simulator, rig))

            // The device comes back after its reboot, running the new image for a test.
            list = try slots(Self.verb(["image", "list", "--json"], rig: rig))
            #expect(slot(list, 0)["hash"] as? String == uploaded)
            #expect(slot(list, 0)["active"] as? Bool == true && slot(list, 0)["confirmed"] as? Bool == false)

            result = Self.verb(["image", "confirm", "--json"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            list = try slots(result)
            #expect(slot(list, 0)["hash"] as? String == uploaded && slot(list, 0)["confirmed"] as? Bool == true)

            result = Self.verb(["echo", "hello over BlueZ"], rig: rig)
            #expect(
                result.status == 0 && result.stdoutText == "hello over BlueZ\n", Self.report(result, simulator, rig))
            #expect(simulator.lines.contains("activated: boot 2: swapped to 2.0.0+0 (test)"), "\(simulator.lines)")
        }
    }
    @Test("an nRF Connect SDK dfu_application.zip (two images) to simulate --kind smp --smp-images 2: both confirmed")
    func twoImagePackage() async throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let ncs = Self.root + "/Tests/Data/mcuboot/ncs"
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--smp-images", "2", "--flash", "instant", "--save-images",
                images.path, "--exit-after", "1",
            ])
            let result = Self.upload(["--target", Self.peripheral, ncs + "/dfu_application.zip"], rig: rig)
            #expect(result.status == 0, Self.report(result, simulator, rig))
            #expect(
                result.stdoutText
                    == "image 0 'app_update.bin' 2.1.0.7 (hash 29fa808f06e92f7f…) confirmed by the device: slot 0, "
                    + "active confirmed; 20663 bytes uploaded\n"
                    + "image 1 'net_core_app_update.bin' 1.4.0 (hash 839bbe3f2c6f93dc…) confirmed by the device: "
                    + "slot 0, active confirmed; 12663 bytes uploaded\n", Self.report(result, simulator, rig))
            #expect(try await simulator.exit(within: .seconds(30)) == 0, "\(simulator.log)")
            let app = try Self.file(ncs + "/app/app_update.bin")
            let net = try Self.file(ncs + "/net/net_core_app_update.bin")
            #expect(try Self.file(images.file("slot0.bin")).prefix(app.count) == ArraySlice(app))
            #expect(try Self.file(images.file("slot2.bin")).prefix(net.count) == ArraySlice(net))
        }
    }
}

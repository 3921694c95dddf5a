import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// smpmgr 0.19.1 / smpclient 7.3.0 (a third-party SMP client, through bleak) drives `nrfloader simulate --kind smp`
/// over bluezoo through upload, test, reset and confirm (Tests/Rig/smpmgr_session.sh; the committed run is
/// Tests/Data/smp-ble/smpmgr-transcript.txt).
@Suite("smpmgr against simulate --kind smp", .tags(.integration))
struct SMPManagerTests {
    static let root = TestPaths.repositoryRoot.path
    static let venvPython = root + "/.build-rig/smp-venv/bin/python"
    static let isAvailable = BlueZRig.isAvailable && FileManager.default.isExecutableFile(atPath: venvPython)
    static let unavailableReason: Comment =
        "the BlueZ rig or smpmgr is not set up: run Tests/Rig/setup.sh and setup-smp.sh"
    static let image = "Tests/Data/smp-ble/ecdsa-p256-130k.bin"
    static let second = "Tests/Data/mcuboot/ed25519.bin"

    @Test(
        "smpmgr uploads, tests, resets and confirms; slot 0 holds the image byte for byte; its upgrade swaps nothing",
        .enabled(if: isAvailable, unavailableReason))
    func uploadTestResetConfirm() async throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        try await BlueZRig.with { rig in
            // bleak takes the MTU from AcquireWrite (bluetoothd always offers it; bluezoo only when the server does).
            let simulator = try await rig.startSimulate([
                "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--acquire-write", "--save-images",
                images.path,
            ])
            let session = ProcessRunner().run(
                "/bin/sh",
                [Self.root + "/Tests/Rig/smpmgr_session.sh", "C0:DE:00:00:00:02", Self.image, Self.second],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            let transcript = session.stdoutText
            let report = Comment(
                rawValue: "\(transcript)\(session.stderrText)\nsimulate stdout:\n"
                    + simulator.lines.joined(separator: "\n") + "\nsimulate stderr:\n\(simulator.log)")
            #expect(session.status == 0, report)
            let steps = transcript.components(separatedBy: "\n$ ").map { "$ " + $0 }
            #expect(steps.count == 10, report)
            #expect(steps.allSatisfy { $0.contains("(exit 0)") }, report)
            // After the reset the new image runs unconfirmed in slot 0; after --confirm it is confirmed there.
            let afterReset = try #require(steps.count > 5 ? steps[5] : nil, report)
            #expect(afterReset.contains("slot=0,\n    version='1.4.0.130',"), report)
            #expect(afterReset.contains("confirmed=False,\n    active=True,"), report)
            let afterConfirm = try #require(steps.count > 7 ? steps[7] : nil, report)
            #expect(afterConfirm.contains("slot=0,\n    version='1.4.0.130',"), report)
            #expect(afterConfirm.contains("confirmed=True,\n    active=True,"), report)
            // smpmgr's `upgrade` without --confirm uploads and resets but marks nothing for test: 2.0.0 stays in
            // slot 1, and 1.4.0.130 keeps running (smp.md, "Differences already seen in smpmgr").
            let afterUpgrade = try #require(steps.count > 9 ? steps[9] : nil, report)
            #expect(afterUpgrade.contains("slot=0,\n    version='1.4.0.130',"), report)
            #expect(afterUpgrade.contains("slot=1,\n    version='2.0.0',"), report)
            #expect(simulator.log.contains("boot 3: no swap"), report)

            simulator.send(SIGINT)
            #expect(try await simulator.exit(within: .seconds(20)) == 0, report)
            #expect(
                simulator.lines == [
                    "ready: smp 'Zephyr' on hci1 (C0:DE:00:00:00:02)",
                    "activated: boot 2: swapped to 1.4.0+130 (test)",
                    "advertising: smp 'Zephyr' on hci1 (C0:DE:00:00:00:02)",
                    "advertising: smp 'Zephyr' on hci1 (C0:DE:00:00:00:02)",
                ], report)
            let bigImage = Array(try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + Self.image)))
            let slot0 = Array(try Data(contentsOf: URL(fileURLWithPath: images.file("slot0.bin"))))
            // Compared as one verdict: when 130 KiB differ, Swift Testing's diff of the two arrays takes minutes and
            // holds a thread the other tests of the run need.
            #expect(slot0.prefix(bigImage.count).elementsEqual(bigImage), "slot 0 holds the image byte for byte")
            #expect(slot0[slot0.count - 24] == 1, "image_ok in slot 0's trailer")
            let secondImage = Array(try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + Self.second)))
            let slot1 = Array(try Data(contentsOf: URL(fileURLWithPath: images.file("slot1.bin"))))
            #expect(slot1.prefix(secondImage.count).elementsEqual(secondImage), "slot 1 holds the image byte for byte")
        }
    }
}

import Checksums
import DeviceLink
import Foundation
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter
import TestSupport
import Testing

/// MCUboot's mode, asked with `os bootloader info`: what the update does after the upload in each mode, against a
/// simulated device whose boot follows that mode.
@Suite struct BootloaderModeTests {
    static let image: SMPImageUpload = {
        let path = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ed25519.bin")
        let bytes = [UInt8]((try? Data(contentsOf: path)) ?? Data())
        let parsed = try? MCUbootImage(bytes: bytes, file: "ed25519.bin")
        return SMPImageUpload(
            image: 0, bytes: bytes, hash: parsed?.storedHash ?? [], fileSHA256: SHA256.hash(bytes))
    }()

    struct Run {
        var outcome: SMPTargetAdapter<SimulatedSMPTransport>.Outcome
        var device: SimulatedSMPDevice
        var logs: [String]
    }

    static func upload(mode bootloaderMode: Int?, _ mode: SMPConfirmMode = .testAndConfirm) async -> Run {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: 0x1_0000)
        configuration.bootloaderMode = bootloaderMode
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        let transport = SimulatedSMPTransport(
            device: SimulatedSMPDevice(configuration: configuration, running: running), faults: FaultPlan())
        var upload = SMPUploadConfiguration()
        upload.mode = mode
        var logs: [String] = []
        let outcome = await SMPTargetAdapter(
            transport: transport, uploader: SMPUploader(images: [image], configuration: upload)
        )
        .run { event in
            if case .log(let line) = event { logs.append(line) }
        }
        return Run(outcome: outcome, device: transport.device, logs: logs)
    }

    @Test("overwrite-only: the image is confirmed before the reset (no test), copied over slot 0, and runs confirmed")
    func overwriteOnly() async throws {
        let run = await Self.upload(mode: 2)
        guard case .completed(let result) = run.outcome else {
            Issue.record("\(run.outcome)\n\(run.logs.joined(separator: "\n"))")
            return
        }
        #expect(result.outcome == .confirmed && result.slot.slot == 0 && result.slot.hash == Self.image.hash)
        #expect(run.logs.contains("bootloader: MCUboot overwrite-only, which has no revert: upload, confirm, reset"))
        #expect(run.device.log.contains("slot 1 marked pending permanent"), "\(run.device.log)")
        #expect(!run.device.log.contains("slot 1 marked pending test"))
        #expect(run.device.log.contains { $0.hasSuffix("(overwrite-only)") }, "\(run.device.log)")
        #expect(Array(run.device.slots[0].prefix(Self.image.bytes.count)) == Self.image.bytes)
    }

    @Test("direct-XIP: no state write; the reset runs the newer slot, which the device then lists active and confirmed")
    func directXIP() async throws {
        let run = await Self.upload(mode: 4)
        guard case .completed(let result) = run.outcome else {
            Issue.record("\(run.outcome)\n\(run.logs.joined(separator: "\n"))")
            return
        }
        #expect(result.outcome == .confirmed && result.slot.slot == 1 && result.slot.isActive)
        #expect(
            run.logs.contains(
                "bootloader: MCUboot direct-xip, which boots the newest valid slot: upload, reset, no test or confirm"))
        #expect(!run.logs.contains { $0.hasPrefix("device accepted") }, "\(run.logs)")
        #expect(run.device.log.contains("boot 2: running slot 1 (2.0.0+0)"), "\(run.device.log)")
    }

    @Test("a mode without revert refuses --smp-mode test before anything is uploaded")
    func noTestWithoutRevert() async throws {
        for mode in [2, 4, 6] {
            let run = await Self.upload(mode: mode, .test)
            guard case .failed(.unexpectedState(let message), _) = run.outcome else {
                Issue.record("mode \(mode): \(run.outcome)")
                continue
            }
            #expect(message.contains("cannot test an image: it has no revert"), "\(message)")
            #expect(!run.device.log.contains { $0.hasPrefix("upload started") }, "mode \(mode): \(run.device.log)")
        }
    }

    @Test("a swap mode (the simulated default, or move) is updated as before: test, reset, confirm")
    func swapAndUnanswered() async throws {
        for mode in [nil, 3] as [Int?] {
            let run = await Self.upload(mode: mode)
            guard case .completed(let result) = run.outcome else {
                Issue.record("mode \(String(describing: mode)): \(run.outcome)")
                continue
            }
            #expect(result.outcome == .confirmed && result.slot.slot == 0)
            #expect(run.device.log.contains("slot 1 marked pending test"), "\(run.device.log)")
            #expect(!run.logs.contains { $0.hasPrefix("bootloader:") })
        }
    }
}

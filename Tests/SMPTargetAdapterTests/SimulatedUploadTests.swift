import Checksums
import DFUSimulator
import DeviceLink
import Foundation
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter
import TestSupport
import Testing

/// The SMP upload machine, through its adapter, against the simulated Zephyr/MCUboot device.
@Suite struct SimulatedUploadTests {
    static let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot")

    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    struct Run {
        var outcome: SMPTargetAdapter<SimulatedSMPTransport>.Outcome
        var transport: SimulatedSMPTransport
        var logs: [String]
        var uploadStarted: Duration?
        var uploadEnded: Duration?
    }

    /// Uploads `image` to a fresh simulated device running a 0.0.1 image.
    static func upload(
        _ image: [UInt8], slotSize: Int = 0x40000, answersParameters: Bool = false,
        parameters: MCUmgrParameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4), faults: [String] = [],
        configure: (inout SMPUploadConfiguration) -> Void = { _ in }, link: LinkModel = LinkModel()
    ) async throws -> Run {
        let parsed = try MCUbootImage(bytes: image, file: "image.bin")
        var deviceConfiguration = SimulatedSMPDevice.Configuration(slotSize: slotSize)
        deviceConfiguration.answersParameters = answersParameters
        deviceConfiguration.parameters = parameters
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        let device = SimulatedSMPDevice(configuration: deviceConfiguration, running: running)
        let plan = FaultPlan(faults: try faults.map { try FaultSpecification.parse($0) })
        let transport = SimulatedSMPTransport(device: device, link: link, faults: plan)
        var configuration = SMPUploadConfiguration()
        configure(&configuration)
        let uploader = SMPUploader(
            image: image, imageHash: try #require(parsed.storedHash), fileSHA256: SHA256.hash(image),
            configuration: configuration)
        var logs: [String] = []
        var started: Duration?
        var ended: Duration?
        let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
            switch event {
            case .log(let line): logs.append(line)
            case .progress(let progress, let elapsed):
                if progress.phase == .uploading, started == nil { started = elapsed }
                if progress.phase == .uploading, progress.bytesConfirmed == progress.totalBytes, ended == nil {
                    ended = elapsed
                }
            }
        }
        return Run(outcome: outcome, transport: transport, logs: logs, uploadStarted: started, uploadEnded: ended)
    }

    static func result(_ run: Run) throws -> SMPUploadResult {
        guard case .completed(let result) = run.outcome else {
            Issue.record("upload failed: \(run.outcome)\n\(run.logs.joined(separator: "\n"))")
            throw CancellationError()
        }
        return result
    }

    @Test("test-and-confirm: the new image runs confirmed, byte for byte in the primary slot")
    func testAndConfirm() async throws {
        let image = try Self.file("ed25519.bin")
        let run = try await Self.upload(image)
        let result = try Self.result(run)
        #expect(result.outcome == .confirmed)
        #expect(result.slot.slot == 0 && result.slot.isActive && result.slot.isConfirmed)
        #expect(result.slot.version == "2.0.0")
        #expect(result.bytesUploaded == image.count)
        #expect(!result.parametersReported)
        #expect(run.logs.contains { $0.contains("rc 8 (MGMT_ERR_ENOTSUP") })
        let device = run.transport.device
        #expect(Array(device.primary.prefix(image.count)) == image)
        #expect(device.log.contains("slot 1 marked pending test"))
        #expect(device.log.contains("running image confirmed"))
        // Confirmed: another reset keeps it.
        var after = device
        after.reboot()
        #expect(Array(after.primary.prefix(image.count)) == image)
    }

    @Test("an image signed with --confirm is never asked for test: reset only, and it runs confirmed")
    func permanentImage() async throws {
        let image = try Self.file("ecdsa-p256-confirm.bin")
        let run = try await Self.upload(image, slotSize: image.count)
        let result = try Self.result(run)
        #expect(result.outcome == .confirmed)
        #expect(run.logs.contains { $0.contains("already pending permanently") })
        #expect(!run.transport.device.log.contains("slot 1 marked pending test"))
        #expect(Array(run.transport.device.primary.prefix(image.count - 48)) == Array(image.prefix(image.count - 48)))
    }

    @Test("test: the image runs unconfirmed, and MCUboot reverts it on the next reset")
    func testOnly() async throws {
        let image = try Self.file("hash-only.bin")
        let run = try await Self.upload(image) { $0.mode = .test }
        let result = try Self.result(run)
        #expect(result.outcome == .testing)
        #expect(result.slot.isActive && !result.slot.isConfirmed)
        var device = run.transport.device
        #expect(Array(device.primary.prefix(image.count)) == image)
        device.reboot()
        #expect(Array(device.secondary.prefix(image.count)) == image)
        #expect(device.log.last == "boot 3: test image not confirmed, reverted")
    }

    @Test("confirm and upload-only end where they say")
    func otherModes() async throws {
        let image = try Self.file("ecdsa-p256.bin")
        let confirmed = try Self.result(try await Self.upload(image) { $0.mode = .confirm })
        #expect(confirmed.outcome == .confirmed)
        let uploaded = try await Self.upload(image) { $0.mode = .uploadOnly }
        #expect(try Self.result(uploaded).outcome == .uploaded)
        #expect(Array(uploaded.transport.device.secondary.prefix(image.count)) == image)
        #expect(uploaded.transport.device.bootCount == 1)
        let permanent = try Self.file("ecdsa-p256-confirm.bin")
        let pending = try await Self.upload(permanent, slotSize: permanent.count) { $0.mode = .uploadOnly }
        #expect(try Self.result(pending).outcome == .pendingPermanent)
    }

    @Test(
        "link faults are recovered from the device's offset",
        arguments: [
            "disconnect@3000", "reboot@3000", "drop-packet@5", "drop-notification@6", "stall@7",
            "duplicate-notification@4", "mtu@23",
        ])
    func faults(fault: String) async throws {
        let image = try Self.file("ed25519.bin")
        let run = try await Self.upload(image, faults: [fault])
        let result = try Self.result(run)
        #expect(result.outcome == .confirmed)
        #expect(Array(run.transport.device.primary.prefix(image.count)) == image)
        // What the device accepted: the whole image (a chunk whose answer was lost included), and more only when a
        // reboot made it start over.
        if fault.hasPrefix("reboot") {
            #expect(result.bytesUploaded > image.count)
        } else {
            #expect(result.bytesUploaded == image.count, "\(fault)")
        }
    }

    @Test("after a lost link the upload goes on from the device's offset, not from the start")
    func resumesFromDeviceOffset() async throws {
        let image = try Self.file("ed25519.bin")
        let run = try await Self.upload(image, faults: ["disconnect@4000"])
        let result = try Self.result(run)
        #expect(result.reconnects == 1, "\(run.logs.joined(separator: "\n"))")
        let resumed = try #require(run.logs.first { $0.hasPrefix("resuming the upload at offset") })
        let offset = try #require(Int(resumed.split(separator: " ")[5].trimmingCharacters(in: .punctuationCharacters)))
        #expect(offset > 0)
        // Nothing below the device's offset was sent again: the bytes uploaded add up to the image exactly.
        #expect(result.bytesUploaded == image.count)
    }

    @Test("a device error ends the update with its name (exit 76 in the CLI)")
    func deviceRefuses() async throws {
        let image = try Self.file("hash-only.bin")
        let run = try await Self.upload(image, faults: ["respond@00:1C"])
        // The first image-state request is the read; answer it with 28 to see the naming.
        guard case .failed(let error, let reached) = run.outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(reached)
        #expect(
            "\(error)"
                == "device refused image state read: rc 28 (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING: there is already an image operation pending)"
        )
        let v1 = try await Self.upload(image, faults: ["respond@01:09"]) { $0.version = .v1 }
        guard case .failed(let v1Error, _) = v1.outcome else {
            Issue.record("expected a failure")
            return
        }
        // v1: img_mgmt_translate_error_code turns NO_FREE_SLOT into MGMT_ERR_EBADSTATE.
        #expect(
            "\(v1Error)" == "device refused image upload: rc 6 (MGMT_ERR_EBADSTATE: current state disallows command)")
    }

    @Test("chunks fill the device's buffer and the requests in flight follow buf_count")
    func chunksAndPipelining() async throws {
        let image = try Self.file("ed25519.bin")
        let big = MCUmgrParameters(bufferSize: 2475, bufferCount: 4)
        let result = try Self.result(try await Self.upload(image, answersParameters: true, parameters: big))
        #expect(result.parametersReported)
        #expect(result.requestsInFlight == 3)
        // 2475 / 244 = 10 whole ATT writes: frames of at most 2440 bytes.
        #expect(result.chunkSize + 8 + 13 <= 2440 && result.chunkSize > 2400)
        let single = try Self.result(
            try await Self.upload(image, answersParameters: true, parameters: big) { $0.maximumRequestsInFlight = 1 })
        #expect(single.requestsInFlight == 1)
    }
}

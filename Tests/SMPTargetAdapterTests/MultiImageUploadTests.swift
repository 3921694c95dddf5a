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

/// Two images in one session (an nRF5340: application core = image 0, network core = image 1) against a simulated
/// device with two image pairs, through the adapter.
@Suite struct MultiImageUploadTests {
    static let folder = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ncs")

    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func images() throws -> [SMPImageUpload] {
        try [(0, "app/app_update.bin"), (1, "net/net_core_app_update.bin")].map { number, name in
            let bytes = try file(name)
            let image = try MCUbootImage(bytes: bytes, file: name)
            return SMPImageUpload(
                image: number, bytes: bytes, hash: try #require(image.storedHash), fileSHA256: SHA256.hash(bytes))
        }
    }

    struct Run {
        var outcome: SMPTargetAdapter<SimulatedSMPTransport>.Outcome
        var transport: SimulatedSMPTransport
        var logs: [String]
        var progress: [SMPProgress]
    }

    static func upload(
        _ images: [SMPImageUpload], imageCount: Int = 2, faults: [String] = [],
        otherImages: SimulatedSMPDevice.Configuration.OtherImageConfirmation = .any,
        configure: (inout SMPUploadConfiguration) -> Void = { _ in }
    ) async throws -> Run {
        var deviceConfiguration = SimulatedSMPDevice.Configuration(slotSize: 0x8000)
        deviceConfiguration.imageCount = imageCount
        deviceConfiguration.otherImageConfirmation = otherImages
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        let device = SimulatedSMPDevice(configuration: deviceConfiguration, running: running)
        let plan = FaultPlan(faults: try faults.map { try FaultSpecification.parse($0) })
        let transport = SimulatedSMPTransport(device: device, faults: plan)
        var configuration = SMPUploadConfiguration()
        configure(&configuration)
        var logs: [String] = []
        var progress: [SMPProgress] = []
        let outcome = await SMPTargetAdapter(
            transport: transport, uploader: SMPUploader(images: images, configuration: configuration)
        ).run { event in
            switch event {
            case .log(let line): logs.append(line)
            case .progress(let report, _): progress.append(report)
            }
        }
        return Run(outcome: outcome, transport: transport, logs: logs, progress: progress)
    }

    static func result(_ run: Run) throws -> SMPUploadResult {
        guard case .completed(let result) = run.outcome else {
            Issue.record("upload failed: \(run.outcome)\n\(run.logs.joined(separator: "\n"))")
            throw CancellationError()
        }
        return result
    }

    @Test("test-and-confirm: both images uploaded to their numbers, one reset, both run confirmed byte for byte")
    func testAndConfirm() async throws {
        let images = try Self.images()
        let run = try await Self.upload(images)
        let result = try Self.result(run)
        #expect(result.images.map(\.image) == [0, 1])
        #expect(result.images.allSatisfy { $0.outcome == .confirmed && $0.slot.isActive && $0.slot.isConfirmed })
        #expect(result.images.map(\.slot.slot) == [0, 0])
        #expect(result.images.map(\.slot.version) == ["2.1.0.7", "1.4.0"])
        #expect(result.images.map(\.bytesUploaded) == images.map(\.bytes.count))
        #expect(result.bytesUploaded == images.reduce(0) { $0 + $1.bytes.count })
        let device = run.transport.device
        #expect(device.bootCount == 2, "one reset: \(device.log)")
        #expect(Array(device.slots[0].prefix(images[0].bytes.count)) == images[0].bytes)
        #expect(Array(device.slots[2].prefix(images[1].bytes.count)) == images[1].bytes)
        // The network core (image 1) is marked and confirmed before the application (image 0): the simulated
        // nRF5340 has NCSDK-34106, and skips a network core image marked after the application's.
        let marks = device.log.filter { $0.hasPrefix("slot ") || $0.hasPrefix("running image confirmed") }
        #expect(
            marks == [
                "slot 3 marked pending test (image 1)", "slot 1 marked pending test (image 0)",
                "running image confirmed (image 1)", "running image confirmed (image 0)",
            ], "\(device.log)")
        #expect(!device.log.contains { $0.contains("NCSDK-34106") }, "\(device.log)")
        // Confirmed: another reset keeps both.
        var after = device
        after.reboot()
        #expect(Array(after.slots[2].prefix(images[1].bytes.count)) == images[1].bytes)
        // Progress names the image being sent: part 1 is image 0, part 2 image 1, each with its own size.
        let uploading = run.progress.filter { $0.phase == .uploading }
        #expect(
            Set(uploading.map { "\($0.part)/\($0.parts) image \($0.image) of \($0.totalBytes)" }) == [
                "1/2 image 0 of 20663", "2/2 image 1 of 12663",
            ])
    }

    @Test("NCSDK-34106: an application core image marked before the network core's leaves the network core as it was")
    func networkCoreSkippedWhenMarkedLast() async throws {
        let images = try Self.images()
        // Both images uploaded to their secondary slots, nothing marked yet.
        var device = try await Self.upload(images) { $0.mode = .uploadOnly }.transport.device
        let networkCoreBefore = device.slots[2]
        // The order the manifest lists them (application first), as nrfloader 0.2 marked them.
        for image in images {
            let write = SMPRequest.writeImageState(hash: image.hash, confirm: false).frame(sequence: 0, version: .v2)
                .encoded()
            #expect(device.receive(write).answer != nil)
        }
        device.reboot()
        #expect(Array(device.slots[0].prefix(images[0].bytes.count)) == images[0].bytes, "the application swapped")
        #expect(device.slots[2] == networkCoreBefore, "the network core kept its old image")
        #expect(
            device.log.contains {
                $0.hasSuffix(
                    "network core update skipped: the application core image was "
                        + "marked first (NCSDK-34106)")
            }, "\(device.log)")
    }

    @Test("test: both run unconfirmed after one reset, and MCUboot reverts both on the next")
    func testOnly() async throws {
        let images = try Self.images()
        let run = try await Self.upload(images) { $0.mode = .test }
        let result = try Self.result(run)
        #expect(result.images.map(\.outcome) == [.testing, .testing])
        var device = run.transport.device
        device.reboot()
        #expect(Array(device.slots[3].prefix(images[1].bytes.count)) == images[1].bytes)
        #expect(
            device.log.suffix(2) == [
                "boot 3: test image not confirmed, reverted (image 0)",
                "boot 3: test image not confirmed, reverted (image 1)",
            ])
    }

    @Test("confirm and upload-only end where they say for every image")
    func otherModes() async throws {
        let images = try Self.images()
        let confirmed = try Self.result(try await Self.upload(images) { $0.mode = .confirm })
        #expect(confirmed.images.map(\.outcome) == [.confirmed, .confirmed])
        let uploaded = try await Self.upload(images) { $0.mode = .uploadOnly }
        #expect(try Self.result(uploaded).images.map(\.outcome) == [.uploaded, .uploaded])
        #expect(uploaded.transport.device.bootCount == 1)
        #expect(Array(uploaded.transport.device.slots[3].prefix(images[1].bytes.count)) == images[1].bytes)
    }

    @Test("a link loss in the middle of image 1 resumes at the device's offset; nothing it holds is sent again")
    func resumesInImageOne() async throws {
        let images = try Self.images()
        // The device has received all of image 0 and about half of image 1 (request bytes, framing included).
        let run = try await Self.upload(images, faults: ["disconnect@28000"])
        let result = try Self.result(run)
        #expect(result.reconnects == 1, "\(run.logs.joined(separator: "\n"))")
        let resumed = try #require(run.logs.first { $0.hasPrefix("resuming the upload at offset") })
        #expect(resumed.contains(" of image 1,"), "\(resumed)")
        let offset = try #require(Int(resumed.split(separator: " ")[5]))
        #expect(offset > 0 && offset < images[1].bytes.count)
        // Each image's acknowledged bytes add up to its size exactly: no byte below the device's offset went twice.
        #expect(result.images.map(\.bytesUploaded) == images.map(\.bytes.count))
        #expect(run.transport.device.log.filter { $0.hasPrefix("upload started") }.count == 2)
        // Every chunk went at the offset the device expected: it never had to name another.
        #expect(!run.logs.contains { $0.hasPrefix("device expects offset") }, "\(run.logs)")
        #expect(
            run.logs.contains { $0.hasPrefix("image state: image 0 slot 0 0.0.1 ") && $0.contains("image 1 slot 0") })
        #expect(Array(run.transport.device.slots[2].prefix(images[1].bytes.count)) == images[1].bytes)
    }

    @Test("a device that refuses to confirm another image (Zephyr's default Kconfig) fails naming the refusal")
    func otherImageConfirmationDenied() async throws {
        let images = try Self.images()
        let run = try await Self.upload(images, otherImages: .denied)
        guard case .failed(let error, _) = run.outcome else {
            Issue.record("expected a refusal, got \(run.outcome)")
            return
        }
        #expect("\(error)".hasPrefix("device refused image state write: rc 32 (IMG_MGMT_ERR_IMAGE_CONFIRMATION_DENIED"))
    }

    @Test("an image number the device does not update is refused by the device with no free slot")
    func imageOutOfRange() async throws {
        let images = try Self.images()
        let run = try await Self.upload(images, imageCount: 1)
        guard case .failed(let error, _) = run.outcome else {
            Issue.record("expected a refusal, got \(run.outcome)")
            return
        }
        #expect("\(error)".hasPrefix("device refused image upload: rc 9 (IMG_MGMT_ERR_NO_FREE_SLOT"))
    }

    @Test("driven by hand: image 1's first chunk names image 1 with its own len and sha, after image 0's state read")
    func secondImageFirstChunk() throws {
        let images = try Self.images()
        var machine = SMPUploader(images: images, configuration: SMPUploadConfiguration())
        _ = machine.start(at: .zero)
        func frames(_ actions: [SMPAction]) -> [SMPFrame] {
            actions.compactMap { if case .send(let bytes) = $0 { try? SMPFrame(decoding: bytes) } else { nil } }
        }
        func answer(_ request: SMPFrame, _ body: CBORValue) -> [UInt8] {
            SMPFrame(
                header: SMPHeader(
                    operation: request.header.operation.response, version: request.header.version, length: 0,
                    group: request.header.group, sequence: request.header.sequence, command: request.header.command),
                body: body
            ).encoded(style: .indefinite)
        }
        func running(_ image: Int) -> ImageSlotState {
            ImageSlotState(
                image: image, slot: 0, version: "0.0.1", hash: [UInt8](repeating: UInt8(image), count: 32),
                isConfirmed: true, isActive: true)
        }
        var actions = machine.connected(mtu: 247, at: .zero)
        actions = machine.receive(answer(frames(actions)[0], .map([CBORMapEntry("rc", .int(8))])), at: .zero)
        // Image 0 is already in its secondary slot: the machine goes straight to image 1.
        let held = ImageStateResponse(slots: [
            running(0), ImageSlotState(image: 0, slot: 1, version: "2.1.0.7", hash: images[0].hash), running(1),
        ])
        actions = machine.receive(answer(frames(actions)[0], held.body), at: .zero)
        let first = try #require(frames(actions).first)
        #expect(first.header.group == 1 && first.header.command == 1)
        #expect(first.body["image"] == .int(1))
        #expect(first.body["off"] == .int(0))
        #expect(first.body["len"] == .int(images[1].bytes.count))
        #expect(first.body["sha"] == .bytes(images[1].fileSHA256))
        #expect(actions.contains(.log("uploading image 1 (2 of 2): 12663 bytes")))
    }

    @Test("the state read lists every slot of every image with its image number, as Zephyr does")
    func stateListsEveryImage() throws {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: 0x8000)
        configuration.imageCount = 2
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0), body: [1, 2, 3, 4])
        var device = SimulatedSMPDevice(configuration: configuration, running: running)
        let request = SMPRequest.readImageState.frame(sequence: 7, version: .v2).encoded()
        let answer = try SMPFrame(decoding: try #require(device.receive(request).answer))
        guard case .array(let entries)? = answer.body["images"] else {
            Issue.record("no images list: \(answer.body)")
            return
        }
        #expect(entries.map { $0["image"] } == [.int(0), .int(1)])
        #expect(entries.map { $0["slot"] } == [.int(0), .int(0)])
        let state = try ImageStateResponse(body: answer.body)
        #expect(state.slots.allSatisfy { $0.isActive && $0.isConfirmed })
    }
}

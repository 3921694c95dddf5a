import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization
import TestSupport
import Testing

/// Managing an MCUboot device as a program outside the package does: only public API, against the simulated `.smp`
/// device.
@Suite("SMPDevice, as a program uses it")
struct SMPDeviceTests {
    /// imgtool 2.5.0, ed25519, version 2.0.0: Tests/Data/mcuboot/README.md.
    static let image = TestPaths.repositoryRoot.path + "/Tests/Data/mcuboot/ed25519.bin"
    static let imageHash = bytes("b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90")

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).map {
            $0 <= UInt8(ascii: "9") ? $0 - UInt8(ascii: "0") : $0 - UInt8(ascii: "a") + 10
        }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// A simulated SMP device at full speed, with `faults`.
    static func simulated(faults: [String] = []) throws -> SimulatedTarget {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        options.faults = faults
        return try SimulatedTarget(.smp, options: options)
    }

    /// The device after `nrfloader upload --smp-mode upload-only` of the ed25519 image: slot 1 holds it.
    static func uploaded() async throws -> SimulatedTarget {
        let simulated = try simulated()
        var options = UpdateOptions()
        options.smpMode = .uploadOnly
        _ = try await FirmwareUpdate(firmware: try Firmware(image), target: simulated.target, options: options).run()
        return simulated
    }

    @Test("image state: the running image 0.0.1 in slot 0, active and confirmed; one attempt")
    func imageState() async throws {
        let reply = try await SMPDevice(try Self.simulated().target).imageState()
        #expect(reply.attempts == 1)
        let running = try #require(reply.value.activeSlot())
        #expect(running.image == 0 && running.slot == 0 && running.version == "0.0.1")
        #expect(running.isConfirmed && running.isBootable && !running.isPending && !running.isPermanent)
        #expect(running.hash.count == 32)
        #expect(reply.value.slots.count == 1)
    }

    @Test("upload only, then test, reset, confirm: MCUboot swaps to the image, which stays once confirmed")
    func testResetConfirm() async throws {
        let device = SMPDevice(try await Self.uploaded().target)
        var state = try await device.imageState().value
        var candidate = try #require(state.slot(withHash: Self.imageHash))
        #expect(candidate.slot == 1 && candidate.version == "2.0.0" && !candidate.isPending)

        state = try await device.testImage(hash: Self.imageHash).value
        candidate = try #require(state.slot(withHash: Self.imageHash))
        #expect(candidate.isPending && !candidate.isPermanent)

        let reset = try await device.reset()
        #expect(reset.value == .answered && reset.attempts == 1)

        state = try await device.imageState().value
        var running = try #require(state.activeSlot())
        #expect(running.hash == Self.imageHash && running.slot == 0 && !running.isConfirmed)

        state = try await device.confirmImage().value
        running = try #require(state.activeSlot())
        #expect(running.hash == Self.imageHash && running.isConfirmed)
    }

    @Test("erase: the uploaded image's slot is empty afterwards; the running slot is refused")
    func erase() async throws {
        let device = SMPDevice(try await Self.uploaded().target)
        let erased = try await device.eraseImage()
        #expect(erased.attempts == 1)
        #expect(try await device.imageState().value.slot(withHash: Self.imageHash) == nil)

        let error = await #expect(throws: UpdateError.self) { try await device.eraseImage(slot: 0) }
        #expect(error?.exitStatus == .protocolError)
        #expect(error?.smpErrorCode?.group == 1)
    }

    @Test("echo returns the device's text; a lost answer is sent again, and the attempts say so")
    func echo() async throws {
        let echoed = try await SMPDevice(try Self.simulated().target).echo("hello, device")
        #expect(echoed.value == "hello, device" && echoed.attempts == 1)

        let lines = LogLines()
        let lossy = SMPDevice(try Self.simulated(faults: ["drop-notification@1"]).target) { lines.append($0) }
        let resent = try await lossy.echo("ping")
        #expect(resent.value == "ping" && resent.attempts == 2)
        #expect(!lines.all.isEmpty)
    }

    @Test("a refusal is an UpdateError with exit status 76, the CLI's message, and the device's code decoded")
    func refusal() async throws {
        let device = SMPDevice(try Self.simulated().target)
        let unknown = [UInt8](repeating: 0, count: 32)
        let error = try #require(await #expect(throws: UpdateError.self) { try await device.testImage(hash: unknown) })
        #expect(error.exitStatus == .protocolError)
        #expect(error.exitStatus.rawValue == 76)
        #expect(error.deviceWasReached)
        let code = try #require(error.smpErrorCode)
        #expect(code.group == 1 && code.rc == 8 && code.name == "IMG_MGMT_ERR_HASH_NOT_FOUND")
        #expect(!code.isNotSupported)
        #expect(error.message == "device refused image test: \(code)")
    }

    @Test("a device whose every answer is lost: timed out after 3 sends, exit status 75; no device error")
    func stall() async throws {
        var options = ManagementOptions()
        options.timeout = .seconds(1)
        let device = SMPDevice(try Self.simulated(faults: ["drop-notification@1+"]).target, options: options)
        let error = try #require(await #expect(throws: UpdateError.self) { try await device.imageState() })
        #expect(error.exitStatus == .temporaryFailure)
        #expect(error.deviceWasReached)
        #expect(error.smpErrorCode == nil)
    }

    @Test("a cancelled task ends the command with exit status 130, as Ctrl-C ends the verbs")
    func cancellation() async throws {
        let device = SMPDevice(try Self.simulated().target)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await device.echo("never sent")
        }
        let error = try #require(await #expect(throws: UpdateError.self) { try await task.value })
        #expect(error.exitStatus == .interrupted && error.isCancellation)
        #expect(error.message == "cancelled")
    }

    @Test("an SMP update's refusal carries the device's code too")
    func uploadRefusal() async throws {
        // The first image upload request is answered with the image group's rc 9, IMG_MGMT_ERR_NO_FREE_SLOT.
        let target = try Self.simulated(faults: ["respond@01:09"]).target
        let update = FirmwareUpdate(firmware: try Firmware(Self.image), target: target)
        let error = try #require(await #expect(throws: UpdateError.self) { try await update.run() })
        #expect(error.exitStatus == .protocolError)
        let code = try #require(error.smpErrorCode, "\(error.message)")
        #expect(code.group == 1 && code.rc == 9 && code.name == "IMG_MGMT_ERR_NO_FREE_SLOT")
    }

    @Test("an nRF5 DFU target takes no management requests: a usage error, exit status 64")
    func notSMP() async throws {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        let device = SMPDevice(try SimulatedTarget(.secure, options: options).target)
        let error = try #require(await #expect(throws: UpdateError.self) { try await device.echo("x") })
        #expect(error.exitStatus == .usage)
        #expect(!error.deviceWasReached)
    }

    @Test(
        "fault texts: the SMP device names the ones it cannot simulate",
        arguments: [
            ("stall@1", nil), ("drop-notification@1", nil), ("corrupt-packet@1", "unsupported"),
            ("not-a-fault", "malformed"),
        ] as [(String, String?)])
    func faultProblems(text: String, problem: String?) {
        switch SimulatedDeviceKind.smp.faultProblem(text) {
        case nil: #expect(problem == nil)
        case .unsupported(let reason)?:
            #expect(problem == "unsupported")
            #expect(reason.hasPrefix("is not simulated for sim:smp"))
        case .malformed?: #expect(problem == "malformed")
        }
        #expect(SimulatedDeviceKind.secure.faultProblem("corrupt-packet@1") == nil)
    }
}

/// Lines a log handler received, from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}

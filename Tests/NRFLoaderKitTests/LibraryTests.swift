import Foundation
import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization
import TestSupport
import Testing

/// The library as a program outside the package uses it: only public API.
@Suite("NRFLoaderKit, as a program uses it")
struct LibraryTests {
    static var fastDevice: SimulatedDeviceOptions {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        return options
    }

    @Test("events as an asynchronous sequence: begin first, result last")
    func eventSequence() async throws {
        let update = FirmwareUpdate(
            firmware: try Firmware("selftest-nrf52840dk-mcuboot"),
            target: try .simulated(.smp, options: Self.fastDevice))
        var kinds: [String] = []
        for try await event in update.events {
            switch event {
            case .begin(let plan): kinds.append("begin \(plan.updateProtocol)")
            case .result(let summary): kinds.append("result \(summary.bytesConfirmed)")
            default: break
            }
        }
        #expect(kinds == ["begin smp", "result 132496"])
    }

    @Test("cancelling the task stops the update: interrupted, and the device activated nothing")
    func cancellation() async throws {
        var options = SimulatedDeviceOptions()
        options.speed = 1
        let device = try SimulatedTarget(.secure, options: options)
        let update = FirmwareUpdate(firmware: try Firmware("selftest-pca10040"), target: device.target)
        let progressed = AsyncStream<Void>.makeStream()
        let task = Task { () throws(UpdateError) -> UpdateSummary in
            try await update.run { event in
                if case .progress(let progress) = event, progress.bytesConfirmed > 0 {
                    progressed.continuation.yield()
                }
            }
        }
        var iterator = progressed.stream.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let result = await task.result
        guard case .failure(let failure) = result else {
            Issue.record("a cancelled update completed")
            return
        }
        let error = try #require(failure as? UpdateError)
        #expect(error.exitStatus == .interrupted)
        #expect(error.isCancellation)
        #expect(error.deviceWasReached)
        #expect(device.images.isEmpty)
    }

    @Test("errors carry the exit status the command line exits with")
    func errors() async throws {
        let directory = try TemporaryDirectory()
        #expect(throws: UpdateError.self) { try Firmware(directory.file("missing.zip")) }
        do {
            // As `nrfloader upload`: a path that does not exist may be a catalog id.
            _ = try Firmware(directory.file("missing.zip"))
        } catch {
            #expect(error.exitStatus == .noInput)
            #expect(error.message.hasPrefix("'\(directory.file("missing.zip"))' is neither a file nor a catalog id"))
        }
        do {
            _ = try Firmware("no-such-catalog-id")
        } catch {
            #expect(error.exitStatus == .noInput)
            #expect(error.message.hasPrefix("'no-such-catalog-id' is neither a file nor a catalog id"))
        }
        let broken = try directory.write("broken.zip", [0x50, 0x4B, 0x03, 0x04, 0, 0])
        let firmware = try Firmware(broken)
        do {
            _ = try await FirmwareUpdate(firmware: firmware, target: try .simulated(options: Self.fastDevice)).run()
            Issue.record("a broken package was sent")
        } catch {
            #expect(error.exitStatus == .dataError)
            #expect(!error.deviceWasReached)
        }
        var options = UpdateOptions()
        options.retries = 0
        do {
            _ = try await FirmwareUpdate(
                firmware: try Firmware("blinky-pca10040"), target: try .simulated(options: Self.fastDevice),
                options: options
            ).run()
            Issue.record("retries 0 was accepted")
        } catch {
            #expect(error.exitStatus == .usage)
        }
    }

    @Test("a fleet: each device its own outcome; the most serious status wins")
    func fleet() async throws {
        let firmware = try Firmware("blinky-pca10040")
        var updates: [FirmwareUpdate] = []
        var devices: [SimulatedTarget] = []
        for index in 1...3 {
            var options = Self.fastDevice
            options.address = "C0:DE:00:00:0\(index):01"
            // The second device refuses the firmware: Execute answers "firmware version failure".
            if index == 2 { options.faults = ["respond@04:0B:05"] }
            let device = try SimulatedTarget(.secure, options: options)
            devices.append(device)
            updates.append(FirmwareUpdate(firmware: firmware, target: device.target))
        }
        let started = Counter()
        let outcomes = await FleetUpdate(updates, maximumConcurrentUpdates: 2).run { event in
            if case .started = event.kind { started.add() }
        }
        #expect(started.value == 3)
        #expect(outcomes.map(\.exitStatus) == [.success, .protocolError, .success])
        #expect(ExitStatus.mostSerious(of: outcomes.map(\.exitStatus)) == .protocolError)
        #expect(devices.map { $0.images.count } == [1, 0, 1])
        #expect(devices.map(\.address) == ["C0:DE:00:00:01:01", "C0:DE:00:00:02:01", "C0:DE:00:00:03:01"])
    }

    @Test("the catalog lists what Firmware loads by id")
    func catalog() throws {
        let items = try CatalogItem.all()
        #expect(
            items.contains { $0.id == "blinky-pca10040" && $0.protocols == ["secure", "legacy"] && $0.size == 604 })
        #expect(items.contains { $0.id == "selftest-nrf52840dk-mcuboot" && $0.protocols == ["smp"] })
        for item in items { #expect(try Firmware(item.id).name == item.id) }
    }
}

/// A count several tasks add to.
final class Counter: Sendable {
    private let count = Mutex(0)

    func add() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

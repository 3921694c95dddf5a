import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization
import Testing

/// Pausing and resuming a running update through ``PauseControl``, as a program does it: only public API.
@Suite("pause and resume")
struct PauseTests {
    /// What the update reported, shared with the test.
    final class Recorder: Sendable {
        let events = Mutex<[UpdateEvent]>([])
        let paused = AsyncStream<Void>.makeStream()

        var count: Int { events.withLock { $0.count } }
        var logs: [String] {
            events.withLock { events in
                events.compactMap { if case .log(let line) = $0 { line } else { nil } }
            }
        }
    }

    @Test(
        "a paused update sends nothing until it is resumed, then ends confirmed with every byte, nRF5 DFU and SMP",
        arguments: [("selftest-pca10040", "secure"), ("selftest-nrf52840dk-mcuboot", "smp")])
    func pauseAndResume(firmwareID: String, kind: String) async throws {
        var options = SimulatedDeviceOptions()
        options.speed = 4
        let device = try SimulatedTarget(kind == "smp" ? .smp : .secure, options: options)
        let firmware = try Firmware(firmwareID)
        let control = PauseControl()
        let recorder = Recorder()
        let update = FirmwareUpdate(firmware: firmware, target: device.target, pauseControl: control)
        let task = Task { () throws(UpdateError) -> UpdateSummary in
            // An update that never pauses ends the wait below instead of leaving it hanging.
            defer { recorder.paused.continuation.finish() }
            return try await update.run { event in
                recorder.events.withLock { $0.append(event) }
                if case .progress(let progress) = event, progress.bytesConfirmed > 0, !control.isPaused,
                    !recorder.logs.contains("paused")
                {
                    control.pause()
                }
                if case .log("paused") = event { recorder.paused.continuation.yield() }
            }
        }
        var pauses = recorder.paused.stream.makeAsyncIterator()
        _ = await pauses.next()
        #expect(control.isPaused)
        let heldAt = recorder.count
        // While it is held, another whole update runs at the same simulated radio speed: the held one moves not a
        // byte meanwhile.
        let other = try SimulatedTarget(.secure, options: options)
        _ = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: other.target).run()
        #expect(recorder.count == heldAt, "events arrived while paused")
        control.resume()
        let summary = try await task.value
        #expect(!control.isPaused)
        let size = try #require(try CatalogItem.all().first { $0.id == firmwareID }).size
        #expect(summary.bytesConfirmed == size)
        #expect(recorder.logs.contains { $0.hasPrefix("resumed after a pause of ") })
        // What the device activated: the whole application, or for MCUboot the image now in slot 0.
        let image = try #require(device.images.first)
        #expect(kind == "smp" ? image.bytes.count >= size : image.bytes.count == size)
    }

    @Test("cancelling a paused update stops it at once: interrupted")
    func cancelWhilePaused() async throws {
        var options = SimulatedDeviceOptions()
        options.speed = 1
        let device = try SimulatedTarget(.secure, options: options)
        let control = PauseControl()
        let recorder = Recorder()
        let update = FirmwareUpdate(
            firmware: try Firmware("selftest-pca10040"), target: device.target, pauseControl: control)
        let task = Task { () throws(UpdateError) -> UpdateSummary in
            defer { recorder.paused.continuation.finish() }
            return try await update.run { event in
                if case .progress(let progress) = event, progress.bytesConfirmed > 0 { control.pause() }
                if case .log("paused") = event { recorder.paused.continuation.yield() }
            }
        }
        var pauses = recorder.paused.stream.makeAsyncIterator()
        _ = await pauses.next()
        task.cancel()
        guard case .failure(let failure) = await task.result else {
            Issue.record("a cancelled update completed")
            return
        }
        let error = try #require(failure as? UpdateError)
        #expect(error.exitStatus == .interrupted)
        #expect(device.images.isEmpty)
    }
}

import NRFLoaderKit
import NRFLoaderSimulator
import Synchronization
import TestSupport
import Testing

/// The management groups beside the image group as a program outside the package uses them: only public API, against
/// the simulated `.smp` device in this process and against `UDPDeviceSimulator` over a loopback port.
@Suite("SMPDevice's other management groups, as a program uses them")
struct SMPDeviceGroupsTests {
    static func device() throws -> (SMPDevice, SimulatedTarget) {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        let simulated = try SimulatedTarget(.smp, options: options)
        return (SMPDevice(simulated.target), simulated)
    }

    @Test("bootloader info: MCUboot in swap-using-scratch mode, which tests and reverts")
    func bootloaderInfo() async throws {
        let (device, _) = try Self.device()
        let info = try await device.bootloaderInfo()
        #expect(info.value.name == "MCUboot" && info.value.mode == .swapUsingScratch && !info.value.refusesDowngrade)
        #expect(info.value.mode?.hasTestAndRevert == true && info.attempts == 1)
        #expect(BootloaderMode(number: 2) == .overwriteOnly && !BootloaderMode.overwriteOnly.hasTestAndRevert)
        #expect(BootloaderMode(number: -1).description == "mode -1")
    }

    @Test("settings: written, saved, overwritten, loaded back from storage")
    func settings() async throws {
        let (device, _) = try Self.device()
        _ = try await device.writeSetting("app/greeting", value: Array("hi".utf8))
        _ = try await device.saveSettings()
        _ = try await device.writeSetting("app/greeting", value: [0])
        _ = try await device.loadSettings()
        #expect(try await device.readSetting("app/greeting").value == Array("hi".utf8))
        await #expect(throws: UpdateError.self) { _ = try await device.readSetting("nope/x") }
        do {
            _ = try await device.readSetting("app/none")
        } catch {
            #expect(error.exitStatus == .protocolError)
            #expect(error.smpErrorCode?.group == 3 && error.smpErrorCode?.name == "SETTINGS_MGMT_ERR_KEY_NOT_FOUND")
        }
    }

    @Test("a file uploaded with progress comes back whole; the same upload again sends nothing")
    func files() async throws {
        let (device, _) = try Self.device()
        let bytes: [UInt8] = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let seen = Mutex<[Int]>([])
        let upload = try await device.uploadFile(bytes, to: "/lfs/data.bin") { progress in
            seen.withLock { $0.append(progress.bytesDone) }
        }
        #expect(upload.value.length == 5000 && upload.value.resumedAt == 0)
        #expect(seen.withLock { $0.last } == 5000)
        let again = try await device.uploadFile(bytes, to: "/lfs/data.bin")
        #expect(again.value.resumedAt == 5000)
        #expect(try await device.downloadFile("/lfs/data.bin").value.bytes == bytes)
        #expect(try await device.fileStatus("/lfs/data.bin").value == 5000)
        let hash = try await device.fileHash("/lfs/data.bin", type: "sha256").value
        #expect(hash.type == "sha256" && hash.length == 5000)
    }

    @Test("shell, statistics, enumeration and task statistics answer as Zephyr's handlers")
    func others() async throws {
        let (device, _) = try Self.device()
        #expect(try await device.executeShellCommand(["kernel", "version"]).value.status == 0)
        let unknown = try await device.executeShellCommand(["nope"]).value
        #expect(unknown.output == "nope: command not found\r\n" && unknown.status == -8)
        #expect(try await device.statisticsGroups().value == ["smp_svr_stats"])
        #expect(try await device.statistics(group: "smp_svr_stats").value.fields.map(\.name) == ["ticks"])
        #expect(try await device.managementGroups().value.map(\.id) == [0, 1, 2, 3, 8, 9, 10, 63])
        #expect(
            try await device.taskStatistics().value.map(\.name) == ["idle", "logging", "main", "smp_work", "sysworkq"])
        do {
            _ = try await device.memoryPoolStatistics()
            Issue.record("Zephyr has no mpstat handler")
        } catch {
            #expect(error.smpErrorCode?.isNotSupported == true)
        }
    }

    @Test("UDPDeviceSimulator on a loopback port, reached with UpdateTarget.udp: echo, a file, a reset")
    func overUDP() async throws {
        var simulator = UDPDeviceSimulator(serving: SimulatedDeviceProfile(.smp), host: "127.0.0.1", port: 0)
        simulator.count = 1
        let addresses = AsyncStream<UDPDeviceAddress>.makeStream()
        let serving = Task { try await simulator.run { addresses.continuation.yield($0[0]) } }
        var iterator = addresses.stream.makeAsyncIterator()
        let address = try #require(await iterator.next())
        #expect(address.host == "127.0.0.1" && address.description == "udp:127.0.0.1:\(address.port)")
        let device = SMPDevice(.udp(address))
        #expect(try await device.echo("over UDP").value == "over UDP")
        _ = try await device.uploadFile([1, 2, 3], to: "/lfs/tiny.bin")
        #expect(try await device.downloadFile("/lfs/tiny.bin").value.bytes == [1, 2, 3])
        #expect(try await device.reset().value == .answered)
        #expect(try await device.echo("back").value == "back")
        serving.cancel()
        let report = try await serving.value
        #expect(report.activations == [0] && report.requests[0] >= 8)
        #expect(try UDPDeviceAddress(parsing: "udp:[::1]:7000").description == "udp:[::1]:7000")
    }
}

import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter
import Testing

/// The file transfer machine through its adapter, against the simulated device's file system group (Zephyr's
/// `fs_mgmt.c` as read) and the simulated link's faults.
@Suite struct SimulatedFileTransferTests {
    /// 10 000 bytes that are not all alike.
    static let file: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }

    static func transport(
        faults: [String] = [], prepare: (inout SimulatedSMPDevice) -> Void = { _ in }
    ) throws -> SimulatedSMPTransport {
        var device = SimulatedSMPDevice(
            configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: SimulatedExchangeTests.running
        )
        prepare(&device)
        return SimulatedSMPTransport(
            device: device, faults: FaultPlan(faults: try faults.map { try FaultSpecification.parse($0) }))
    }

    static func run(_ direction: SMPFileTransfer.Direction, over transport: SimulatedSMPTransport) async
        -> (SMPFileTransferAdapter<SimulatedSMPTransport>.Outcome, progress: [Int], logs: [String])
    {
        var progress: [Int] = []
        var logs: [String] = []
        let outcome = await SMPFileTransferAdapter(transport: transport, transfer: SMPFileTransfer(direction)).run(
            onProgress: { done, _ in progress.append(done) }, onLog: { logs.append($0) })
        return (outcome, progress, logs)
    }

    @Test("an upload fills Zephyr's 384-byte buffer with each chunk and leaves the file on the device")
    func upload() async throws {
        let transport = try Self.transport()
        let (outcome, progress, logs) = await Self.run(
            .upload(path: "/lfs/f.bin", bytes: Self.file, offset: 0), over: transport)
        #expect(
            outcome
                == .completed(
                    SMPFileTransferResult(
                        bytes: [], length: 10_000, startOffset: 0, resends: 0, largestChunk: 342, bufferSize: 384)))
        #expect(transport.device.managementGroups.files["/lfs/f.bin"] == Self.file)
        #expect(
            progress.first == 337 && progress.last == 10_000 && progress == progress.sorted(), "\(progress.prefix(3))")
        #expect(logs.contains("device has no MCUmgr parameters; assuming Zephyr's buf_size 384"))
    }

    @Test("with MCUmgr parameters, chunks fill the buffer the device reports, cut to whole ATT packets (4 × 244)")
    func uploadWithParameters() async throws {
        let transport = try Self.transport { device in
            var configuration = device.configuration
            configuration.answersParameters = true
            configuration.parameters = MCUmgrParameters(bufferSize: 1024, bufferCount: 4)
            device = SimulatedSMPDevice(configuration: configuration, running: SimulatedExchangeTests.running)
        }
        let (outcome, _, _) = await Self.run(.upload(path: "/lfs/f.bin", bytes: Self.file, offset: 0), over: transport)
        guard case .completed(let result) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(result.bufferSize == 1024 && result.largestChunk == 934, "\(result)")
    }

    @Test("an answer lost after the device wrote the chunk: sent again, the device names its length, and on from there")
    func lostAnswer() async throws {
        let transport = try Self.transport(faults: ["drop-notification@6"])
        let (outcome, _, logs) = await Self.run(
            .upload(path: "/lfs/f.bin", bytes: Self.file, offset: 0), over: transport)
        guard case .completed(let result) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(result.resends == 1)
        #expect(transport.device.managementGroups.files["/lfs/f.bin"] == Self.file)
        #expect(logs.contains { $0.hasPrefix("no answer within 5.0 seconds to fs upload at offset ") }, "\(logs)")
        #expect(
            logs.contains { $0.hasPrefix("device holds ") && $0.hasSuffix(" bytes of the file; going on from there") })
    }

    @Test("a resumed upload appends after the device's part, then closes the file")
    func resumed() async throws {
        let transport = try Self.transport { $0.managementGroups.files["/lfs/f.bin"] = Array(Self.file.prefix(4000)) }
        let (outcome, progress, _) = await Self.run(
            .upload(path: "/lfs/f.bin", bytes: Self.file, offset: 4000), over: transport)
        guard case .completed(let result) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(result.startOffset == 4000 && progress.first == 4342)
        #expect(transport.device.managementGroups.files["/lfs/f.bin"] == Self.file)
    }

    @Test("a download returns the device's file, its length from the first answer")
    func download() async throws {
        let transport = try Self.transport { $0.managementGroups.files["/lfs/log.txt"] = Self.file }
        let (outcome, progress, _) = await Self.run(.download(path: "/lfs/log.txt"), over: transport)
        guard case .completed(let result) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(result.bytes == Self.file && result.length == 10_000 && result.largestChunk == 337)
        #expect(progress.first == 337 && progress.last == 10_000)
    }

    @Test("refusals: a missing file, a path on no mount point, a device without the file system group")
    func refusals() async throws {
        var (outcome, _, _) = await Self.run(.download(path: "/lfs/none"), over: try Self.transport())
        #expect(
            outcome
                == .failed(
                    .rejected(
                        .group(.fileDownload(name: "/lfs/none", offset: 0)),
                        SMPDeviceError(source: .group(SMPGroupRequest.Group.fileSystem), rc: 3), attempt: 1),
                    deviceWasReached: true))
        (outcome, _, _) = await Self.run(
            .upload(path: "/flash/x", bytes: [1, 2, 3], offset: 0), over: try Self.transport())
        guard case .failed(.rejected(_, let error, _), _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(error == SMPDeviceError(source: .group(SMPGroupRequest.Group.fileSystem), rc: 14))
        let without = try Self.transport { $0.managementGroups.builtIn.remove(SMPGroupRequest.Group.fileSystem) }
        (outcome, _, _) = await Self.run(.download(path: "/lfs/hello.txt"), over: without)
        guard case .failed(.rejected(_, let missing, _), _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(missing == SMPDeviceError(source: .mcumgr, rc: 8))
    }
}

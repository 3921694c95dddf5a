import DFUSimulator
import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter
import Testing

/// The one-request machine through its adapter, against the simulated Zephyr/MCUboot device and its faults.
@Suite struct SimulatedExchangeTests {
    static let running = UnsignedImageBuilder.image(
        version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0), body: [UInt8](repeating: 0xA5, count: 4096))

    static func transport(faults: [String] = []) throws -> SimulatedSMPTransport {
        let device = SimulatedSMPDevice(
            configuration: SimulatedSMPDevice.Configuration(slotSize: 0x4_0000), running: running)
        return SimulatedSMPTransport(
            device: device, faults: FaultPlan(faults: try faults.map { try FaultSpecification.parse($0) }))
    }

    static func run(_ request: SMPManagementRequest, over transport: SimulatedSMPTransport) async
        -> (SMPExchangeAdapter<SimulatedSMPTransport>.Outcome, [String])
    {
        var logs: [String] = []
        let outcome = await SMPExchangeAdapter(transport: transport, exchange: SMPExchange(request: request)).run {
            logs.append($0)
        }
        return (outcome, logs)
    }

    @Test("image state read of a fresh device: the running image, active and confirmed, in slot 0")
    func readState() async throws {
        let (outcome, _) = await Self.run(.readImageState, over: try Self.transport())
        let hash = Array(Self.running.suffix(32))
        #expect(
            outcome
                == .completed(
                    SMPExchangeResult(
                        reply: .imageState(
                            ImageStateResponse(slots: [
                                ImageSlotState(
                                    slot: 0, version: "0.0.1", hash: hash, isBootable: true, isConfirmed: true,
                                    isActive: true)
                            ])), attempts: 1)))
    }

    @Test(
        "a lost answer (dropped, or a stalled device) is recovered by one reconnection and a second send",
        arguments: ["drop-notification@1", "stall@1", "drop-packet@1"])
    func lostAnswerRecovered(fault: String) async throws {
        let transport = try Self.transport(faults: [fault])
        let (outcome, logs) = await Self.run(.echo("hello"), over: transport)
        #expect(outcome == .completed(SMPExchangeResult(reply: .echoed("hello"), attempts: 2)))
        #expect(logs.contains("no answer to echo within 5.0 seconds; reconnecting to send it again"), "\(logs)")
    }

    @Test("every answer lost: timed out after three sends, the device having been reached")
    func everyAnswerLost() async throws {
        let (outcome, _) = await Self.run(.echo("x"), over: try Self.transport(faults: ["drop-notification@1+"]))
        #expect(
            outcome == .failed(.timedOut(waitingFor: "the answer to echo", limit: .seconds(5)), deviceWasReached: true))
    }

    @Test("reset: the device answers, reboots, and the link drops; test then reset swaps the image in")
    func resetSwaps() async throws {
        let transport = try Self.transport()
        let (outcome, _) = await Self.run(.reset, over: transport)
        #expect(outcome == .completed(SMPExchangeResult(reply: .reset(answered: true), attempts: 1)))
        #expect(transport.device.bootCount == 2)
    }

    @Test("a cancelled task ends the exchange as cancelled, the link dropped")
    func cancelled() async throws {
        let transport = try Self.transport(faults: ["stall@1"])
        let exchange = Task { await Self.run(.readImageState, over: transport).0 }
        exchange.cancel()
        #expect(await exchange.value == .failed(.cancelled, deviceWasReached: true))
    }

    @Test("a duplicated answer is read once; an unknown hash is refused with the image group's error")
    func duplicateAndRefusal() async throws {
        let (echo, _) = await Self.run(.echo("twice"), over: try Self.transport(faults: ["duplicate-notification@1"]))
        #expect(echo == .completed(SMPExchangeResult(reply: .echoed("twice"), attempts: 1)))
        let unknown = [UInt8](repeating: 0x11, count: 32)
        let (test, _) = await Self.run(.testImage(hash: unknown), over: try Self.transport())
        #expect(
            test
                == .failed(
                    .rejected(.testImage(hash: unknown), SMPDeviceError(source: .group(1), rc: 8), attempt: 1),
                    deviceWasReached: true))
    }
}

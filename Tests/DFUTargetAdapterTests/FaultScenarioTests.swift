import DFUController
import DFUPackage
import DFUSimulator
import DFUTargetAdapter
import DeviceLink
import TestSupport
import Testing

/// How a faulted update must end.
enum ExpectedEnd: Sendable, CustomTestStringConvertible {
    /// Completed with the whole image confirmed and activated.
    case completes
    /// Failed with an error this predicate accepts, and nothing activated.
    case fails(@Sendable (DFUError) -> Bool, String)

    var testDescription: String {
        switch self {
        case .completes: "completes"
        case .fails(_, let name): "fails: \(name)"
        }
    }
}

@Suite struct FaultScenarioTests {
    static let image = randomImage(size: 3 * 4096 + 512, seed: 77)

    /// Every fault the simulator can inject, with the outcome the engine must reach.
    static let scenarios: [(Fault, ExpectedEnd)] = [
        (.disconnect(afterPacketBytes: 6000), .completes),
        (.reboot(afterPacketBytes: 9000), .completes),
        (.capMTU(23), .completes),
        (.rejectMisalignedWrites, .completes),
        (.dropPacket(.occurrence(30)), .completes),
        (.corruptPacket(.occurrence(30)), .completes),
        (.duplicatePacket(.occurrence(30)), .completes),
        (.dropNotification(.occurrence(3)), .completes),
        (.duplicateNotification(.occurrence(4)), .completes),
        (
            .corruptNotification(.occurrence(5)),
            .fails({ if case .protocolViolation = $0 { true } else { false } }, "protocol violation")
        ),
        (.stall(afterControlPointWrites: 6), .fails({ if case .transport = $0 { true } else { false } }, "transport")),
        (
            .respond(opcode: 0x04, result: 0x0B, extendedError: 0x05, trigger: .occurrence(1)),
            .fails({ if case .rejected = $0 { true } else { false } }, "rejected")
        ),
    ]

    @Test(
        "each injected fault ends as documented, and never with an activated image that differs from the input",
        arguments: scenarios)
    func fault(_ fault: Fault, expected: ExpectedEnd) async throws {
        var configuration = DFUConfiguration()
        configuration.responseTimeout = .seconds(2)
        let part = try DFUFirmware.Part(
            imageType: .application, initPacket: secureInitPacket(for: Self.image), image: Self.image)
        let device = secureDevice(faults: FaultPlan(seed: 1, faults: [fault]))
        let (outcome, _, transport) = try await upload([part], to: device, configuration: configuration)
        let activated = transport.device.activatedImage(.application)
        #expect(activated == nil || activated == Self.image)
        switch (expected, outcome) {
        case (.completes, .completed(let summary)):
            #expect(summary.parts.first?.bytesConfirmed == Self.image.count)
            #expect(activated == Self.image)
        case (.fails(let accepts, let name), .failed(let error, _)):
            #expect(accepts(error), "expected \(name), got \(error)")
            #expect(activated == nil)
        case (.completes, .failed), (.fails, .completed):
            Issue.record("expected the update to \(expected.testDescription), got \(outcome)")
        }
    }
}

/// The simulated targets of `upload --target sim…`, for scenarios that must recover on each.
enum ScenarioTarget: String, CaseIterable, Sendable {
    case secure
    case buttonless
    case legacy

    func device(faults: FaultPlan) -> SimulatedDevice {
        switch self {
        case .secure: secureDevice(faults: faults)
        case .buttonless:
            secureDevice(
                application: [UInt8](repeating: 0xA5, count: 4096), buttonless: .secureWithoutBonds, faults: faults)
        case .legacy:
            SimulatedDevice(
                configuration: SimulatorConfiguration(
                    address: target, bootloader: .legacy(LegacyBootloaderOptions(generation: .sdk11)),
                    faults: faults))
        }
    }

    func part(_ image: [UInt8]) throws -> DFUFirmware.Part {
        switch self {
        case .secure, .buttonless:
            try DFUFirmware.Part(imageType: .application, initPacket: secureInitPacket(for: image), image: image)
        case .legacy:
            try DFUFirmware.Part(
                imageType: .application, initPacket: LegacyInitPacket(image: image).encoded(), image: image)
        }
    }
}

@Suite struct RecoveryScenarioTests {
    static let image = randomImage(size: 5 * 4096 + 256, seed: 11)

    /// The faults issue 11 requires to end verified in the same run, on every simulated target.
    static let faults: [Fault] = [
        .dropPacket(.occurrence(40)), .dropPacket(.occurrence(12)), .corruptPacket(.occurrence(25)),
        .dropNotification(.occurrence(6)), .dropNotification(.occurrence(2)), .disconnect(afterPacketBytes: 9000),
        .reboot(afterPacketBytes: 13_000),
    ]

    @Test(
        "a lost or corrupted packet, a lost notification, a disconnect or a reboot is recovered in the same run",
        arguments: ScenarioTarget.allCases, faults)
    func recovers(target: ScenarioTarget, fault: Fault) async throws {
        let device = target.device(faults: FaultPlan(seed: 3, faults: [fault]))
        let (outcome, events, transport) = try await upload([try target.part(Self.image)], to: device)
        guard case .completed(let summary) = outcome else {
            Issue.record("\(target) \(fault): \(outcome)\n\(transport.device.log.suffix(12))")
            return
        }
        #expect(summary.parts.first?.bytesConfirmed == Self.image.count)
        #expect(transport.device.activatedImage(.application) == Self.image)
        let recovered = events.contains { event in
            if case .log(let line) = event {
                line.contains("reconnecting") || line.contains("asking for") || line.contains("asking again")
                    || line.contains("continuing")
                    || line.contains("checksum mismatch")
            } else {
                false
            }
        }
        #expect(recovered, "the fault must have been noticed: \(events)")
    }

    @Test("a lost packet costs about a second of virtual time, not the 20 s response timeout")
    func lostPacketCost() async throws {
        let part = try ScenarioTarget.secure.part(Self.image)
        let (clean, _, cleanTransport) = try await upload([part], to: ScenarioTarget.secure.device(faults: FaultPlan()))
        let faults = FaultPlan(faults: [.dropPacket(.occurrence(40))])
        let (lossy, _, lossyTransport) = try await upload([part], to: ScenarioTarget.secure.device(faults: faults))
        guard case .completed = clean, case .completed = lossy else {
            Issue.record("\(clean) \(lossy)")
            return
        }
        let extra = lossyTransport.clock.now.offset - cleanTransport.clock.now.offset
        #expect(extra > .zero && extra < .seconds(3), "a lost packet cost \(extra)")
    }
}

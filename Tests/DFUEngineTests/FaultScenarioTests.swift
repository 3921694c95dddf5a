import DFUController
import DFUSimulator
import DFUTargetAdapter
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
        (.dropPacket(.occurrence(30)), .fails({ if case .timedOut = $0 { true } else { false } }, "timed out")),
        (.corruptPacket(.occurrence(30)), .fails({ if case .timedOut = $0 { true } else { false } }, "timed out")),
        (.duplicatePacket(.occurrence(30)), .fails({ if case .timedOut = $0 { true } else { false } }, "timed out")),
        (.dropNotification(.occurrence(3)), .fails({ if case .timedOut = $0 { true } else { false } }, "timed out")),
        (
            .duplicateNotification(.occurrence(4)),
            .fails({ if case .protocolViolation = $0 { true } else { false } }, "protocol violation")
        ),
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
        let part = try FirmwarePart(
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

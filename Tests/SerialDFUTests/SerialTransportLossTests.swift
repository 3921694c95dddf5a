import DFUController
import DFUTargetAdapter
import DeviceLink
import Synchronization
import Testing

@testable import SerialDFU

#if canImport(Glibc)
    import Glibc
#endif

/// A raw pseudo-terminal pair whose master side answers the Secure serial connect (ping, get MTU), then vanishes
/// when the first other frame arrives: it closes the master, so the host's next write to the slave fails.
private final class VanishingTerminal: Sendable {
    let slavePath: String
    private let gone = Atomic<Bool>(false)

    init() throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN (asm-generic/ioctls.h): what unlockpt and ptsname do.
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        slavePath = "/dev/pts/\(number)"
        startThread { [self] in answer(on: master) }
    }

    /// Whether the device has gone.
    var isGone: Bool { gone.load(ordering: .acquiring) }

    private func answer(on master: Int32) {
        defer {
            close(master)
            gone.store(true, ordering: .releasing)
        }
        var decoder = SLIPDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            for frame in decoder.feed(buffer[0..<count]) {
                let answer: [UInt8]
                switch frame.first {
                case SerialOpcode.ping: answer = [SerialOpcode.response, SerialOpcode.ping, 0x01] + frame.dropFirst()
                case SerialOpcode.getMTU: answer = [SerialOpcode.response, SerialOpcode.getMTU, 0x01, 0x83, 0x00]
                default: return
                }
                let wire = SLIP.encode(answer)
                _ = wire.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            }
        }
    }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        _ = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                box.body()
                return nil
            }, box)
        pthread_detach(thread)
    }
}

@Suite struct SerialTransportLossTests {
    private static let noAddress = BluetoothAddress((0, 0, 0, 0, 0, 0))

    @Test("a port lost while writing packets is reported as the next event, and then nothing comes before the deadline")
    func lossDuringPacketsIsAnEvent() async throws {
        let terminal = try VanishingTerminal()
        let transport = SerialDFUTransport(options: .init(path: terminal.slavePath))
        let clock = transport.clock
        _ = try await transport.connect(
            ConnectionRequest(address: Self.noAddress), deadline: clock.now.advanced(by: .seconds(5)))
        try await transport.writeWithoutResponse(.securePacket, [[UInt8](repeating: 0x5A, count: 64)])
        let goneBy = clock.now.advanced(by: .seconds(5))
        while !terminal.isGone && clock.now < goneBy { try await Task.sleep(for: .milliseconds(10)) }
        try #require(terminal.isGone)
        await #expect(throws: LinkError.self) {
            try await transport.writeWithoutResponse(.securePacket, [[UInt8](repeating: 0xA5, count: 64)])
        }
        let event = try await transport.nextEvent(until: clock.now.advanced(by: .seconds(1)))
        guard case .disconnected = event else {
            Issue.record("expected the loss as an event, got \(String(describing: event))")
            return
        }
        // The adapter polls nextEvent with a deadline: with the port gone it must wait for it, not spin.
        let waitStart = clock.now
        let deadline = waitStart.advanced(by: .milliseconds(300))
        #expect(try await transport.nextEvent(until: deadline) == nil)
        #expect(clock.now >= deadline)
    }
}

// Upload time through BlueZ against the time the same path needs to move the same bytes as bare write-without-
// response packets. Run by scripts/bench-bluez.sh, which starts the rig (private bus, bluezoo, `nrfloader simulate`).
//
//     bluez-benchmark bare|dfu|dfu-no-wait --target ADDRESS [--adapter hci0] [--size BYTES] [--no-acquire]
//
// Prints one line: `MODE PATH SECONDS BYTES MTU` (MTU 0: not measured). SECONDS counts from the first byte of the transfer to its end:
// for `bare`, from the first packet until the device answered a control-point request sent after the last one
// (which, on the acquired path, also waits until the socket has handed over every packet); for `dfu`, from the
// first init-packet request to the activation response, as the engine reports it.
import BlueZ
import BlueZTransport
import DBus
import DFUController
import DFUPackage
import DFUTargetAdapter
import DeviceLink

#if canImport(Glibc)
    import Glibc
#endif

@main
struct BlueZThroughput {
    struct Arguments {
        var mode = ""
        var target = ""
        var adapter: String?
        var size = 200 * 1024
        var acquire = true

        init(_ words: [String]) throws {
            var rest = words[...]
            guard let mode = rest.popFirst(), ["bare", "dfu", "dfu-no-wait"].contains(mode) else { throw Failure.usage }
            self.mode = mode
            while let word = rest.popFirst() {
                switch word {
                case "--target": target = rest.popFirst() ?? ""
                case "--adapter": adapter = rest.popFirst()
                case "--size": size = Int(rest.popFirst() ?? "") ?? 0
                case "--no-acquire": acquire = false
                default: throw Failure.usage
                }
            }
            guard !target.isEmpty, size > 0 else { throw Failure.usage }
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case usage
        case failed(String)

        var description: String {
            switch self {
            case .usage:
                "usage: bluez-benchmark bare|dfu|dfu-no-wait --target ADDRESS [--adapter hciN] [--size N] [--no-acquire]"
            case .failed(let reason): reason
            }
        }
    }

    static func main() async {
        do {
            let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
            let client = try await BlueZClient.connect()
            let adapter = try await client.adapter(named: arguments.adapter)
            var options = BlueZGATTTransport.Options()
            options.usesAcquiredSockets = arguments.acquire
            let transport = try await BlueZGATTTransport.open(client: client, adapter: adapter, options: options)
            let target = try BluetoothAddress(parsing: arguments.target)
            let image = (0..<arguments.size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            let (seconds, mtu) =
                arguments.mode == "bare"
                ? try await bare(image, to: target, over: transport)
                : try await dfu(image, to: target, over: transport, waitsAfterCreate: arguments.mode == "dfu")
            let path = transport.paths.acquiredWrite ? "acquired" : "dbus"
            print("\(arguments.mode) \(path) \(seconds) \(image.count) \(mtu)")
        } catch {
            let line = "bluez-benchmark: \(error)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            exit(1)
        }
    }

    /// Moves `image` as write-without-response packets of MTU − 3 bytes, then one Select request as the end mark.
    static func bare(_ image: [UInt8], to target: BluetoothAddress, over transport: BlueZGATTTransport)
        async throws -> (Double, Int)
    {
        let connection = try await transport.connect(
            ConnectionRequest(address: target), deadline: .now.advanced(by: .seconds(30)))
        try await transport.enableNotifications(.secureControlPoint)
        let size = connection.mtu - 3
        let packets = stride(from: 0, to: image.count, by: size).map { Array(image[$0..<min(image.count, $0 + size)]) }
        let start = ContinuousClock.now
        for chunk in stride(from: 0, to: packets.count, by: 64) {
            try await transport.writeWithoutResponse(
                .securePacket, Array(packets[chunk..<min(packets.count, chunk + 64)]))
        }
        try await transport.write(.secureControlPoint, [0x06, 0x01])
        while true {
            guard let event = try await transport.nextEvent(until: .now.advanced(by: .seconds(30))) else {
                throw Failure.failed("no answer to Select after the bare transfer")
            }
            if case .notification(.secureControlPoint, let value) = event, value.prefix(2) == [0x60, 0x06] { break }
            if case .disconnected(let reason) = event { throw Failure.failed("link lost: \(reason)") }
        }
        let elapsed = start.duration(to: .now)
        await transport.disconnect()
        return (elapsed.seconds, connection.mtu)
    }

    /// A Secure DFU of `image` as an application (unsigned init packet, SoftDevice 0x0101, hardware 52).
    static func dfu(
        _ image: [UInt8], to target: BluetoothAddress, over transport: BlueZGATTTransport, waitsAfterCreate: Bool
    ) async throws -> (Double, Int) {
        let command = InitCommand(
            fwVersion: 1, hwVersion: 52, sdReq: [0x101], type: .application, sdSize: 0, blSize: 0,
            appSize: UInt32(image.count), hash: InitCommand.Hash(sha256Of: image), isDebug: false)
        let part = try DFUFirmware.Part(
            imageType: .application, initPacket: SecureInitPacket(initCommand: command).encoded(), image: image)
        var configuration = DFUConfiguration()
        configuration.packetReceiptNotificationInterval = 0
        // `dfu-no-wait`: without the pause after Create that protects real SDK 15-17 bootloaders while they erase
        // (the simulated flash here is instant), which leaves the protocol's own round trips.
        if !waitsAfterCreate { configuration.objectPreparationDelay = .zero }
        let controller = DFUController(
            firmware: try DFUFirmware(parts: [part]), target: target, configuration: configuration)
        var start: ContinuousClock.Instant?
        let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { event in
            if case .phase(let report) = event, report.phase == .sendingInitPacket, start == nil { start = .now }
        }
        let end = ContinuousClock.now
        guard case .completed = outcome, let start else { throw Failure.failed("\(outcome)") }
        return (start.duration(to: end).seconds, 0)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

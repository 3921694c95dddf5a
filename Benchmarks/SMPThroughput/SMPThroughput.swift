// SMP (MCUmgr) upload throughput in the simulator's BLE link model: the SMP engine against the raw ceiling of the
// same link, with pipelining (several upload requests in flight) and without it (`--smp-window 1`). Virtual time:
// the figures are the model's, the same on every run and machine. Run: scripts/bench-smp.sh.
import Checksums
import DFUSimulator
import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import SMPTargetAdapter

@main
enum SMPThroughput {
    static let bodySize = 200 * 1024

    /// One device setting: Zephyr's defaults (MCUmgr parameters off, so 384-byte buffers × 4 are assumed), or an
    /// nRF Connect SDK Bluetooth build that reports bigger buffers.
    struct Device {
        var name: String
        var parameters: MCUmgrParameters?
    }

    static func main() async throws {
        let body = (0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let image = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 1, minor: 0, revision: 0, build: 0), body: body)
        let mcuboot = try MCUbootImage(bytes: image, file: "benchmark")
        let links: [(String, LinkModel)] = [
            ("2M PHY, 7.5 ms, DLE 251, MTU 247", LinkModel()),
            ("1M PHY, 7.5 ms, DLE 251, MTU 247", LinkModel(phy: .le1M)),
            (
                "1M PHY, 30 ms, DLE 27, MTU 23 (Linux defaults)",
                LinkModel(phy: .le1M, connectionInterval: .milliseconds(30), dataLength: 27, mtu: 23)
            ),
        ]
        let devices = [
            Device(name: "Zephyr defaults (no params: 384 B x 4)", parameters: nil),
            Device(
                name: "params 2475 B x 4 (NCS BLE DFU)", parameters: MCUmgrParameters(bufferSize: 2475, bufferCount: 4)),
        ]
        print(
            "SMP upload of a \(image.count / 1024) KiB MCUboot image in the simulator's BLE link model (virtual time)")
        for (name, link) in links {
            let ceiling = link.ceiling(valueLength: link.mtu - 3)
            print("\n\(name): raw ceiling \(kB(ceiling)) kB/s of write-without-response payload")
            for device in devices {
                var rates: [Int: Double] = [:]
                for window in [1, 2, 3] {
                    let measured = try await upload(mcuboot, link: link, device: device, window: window)
                    rates[window] = measured.rate
                    print(
                        "  \(device.name), \(window) in flight: \(kB(measured.rate)) kB/s = "
                            + "\(percent(measured.rate / ceiling)) of the ceiling, \(measured.chunk)-byte chunks"
                    )
                }
                if let one = rates[1], let three = rates[3] {
                    print("    pipelining gain (3 in flight vs 1): \(format2(three / one))x")
                }
            }
        }
    }

    struct Measured {
        var rate: Double
        var chunk: Int
    }

    /// One upload-only run; the rate is the image over the time from the first to the last upload progress event.
    static func upload(_ image: MCUbootImage, link: LinkModel, device: Device, window: Int) async throws -> Measured {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: 0x8_0000)
        if let parameters = device.parameters {
            configuration.answersParameters = true
            configuration.parameters = parameters
        }
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        let transport = SimulatedSMPTransport(
            device: SimulatedSMPDevice(configuration: configuration, running: running), link: link)
        var policy = SMPUploadConfiguration()
        policy.mode = .uploadOnly
        policy.maximumRequestsInFlight = window
        let hash = try image.verifiedHash()
        let uploader = SMPUploader(
            image: image.bytes, imageHash: hash, fileSHA256: SHA256.hash(image.bytes), configuration: policy)
        var first: Duration?
        var last: Duration = .zero
        let outcome = await SMPTargetAdapter(transport: transport, uploader: uploader).run { event in
            guard case .progress(let progress, let elapsed) = event, progress.phase == .uploading else { return }
            if first == nil { first = elapsed }
            last = elapsed
        }
        guard case .completed(let result) = outcome, let first, last > first else {
            throw BenchmarkError.failed("\(outcome)")
        }
        return Measured(rate: Double(image.bytes.count) / (last - first).seconds, chunk: result.chunkSize)
    }

    enum BenchmarkError: Error {
        case failed(String)
    }

    static func kB(_ bytesPerSecond: Double) -> String { format1(bytesPerSecond / 1000) }
    static func percent(_ share: Double) -> String { format1(share * 100) + " %" }
    static func format1(_ value: Double) -> String { "\(Double(Int((value * 10).rounded())) / 10)" }
    static func format2(_ value: Double) -> String { "\(Double(Int((value * 100).rounded())) / 100)" }
}

extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

// DFU throughput in the simulator's link model: each protocol against the raw ceiling of the same link, and
// Secure DFU against the bound its mandatory round trips set. Virtual time: the figures are the model's, the
// same on every run and machine. Run: scripts/bench-dfu.sh.
import DFUController
import DFUPackage
import DFUSimulator
import DFUTargetAdapter
import DeviceLink

/// One link setting to measure.
struct Setting {
    var name: String
    var link: LinkModel
}

/// What one upload took.
struct Measurement {
    var dataTime: Duration
    var requests: Int
    var objects: Int
}

@main
enum DFUThroughput {
    static let imageSize = 200 * 1024
    /// Flash that costs no time: isolates the protocol's own cost from the device's (nRF52 maxima: 85 ms per
    /// page erase and 41 µs per word, 127 ms per 4 KiB object, which alone caps any host at about 32 kB/s).
    static let instantFlash = FlashTiming(pageSize: 4096, pageErase: .zero, wordWrite: .zero)

    static func main() async throws {
        let image = (0..<imageSize).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let settings = [
            Setting(name: "2M PHY, 7.5 ms, DLE 251, MTU 247", link: LinkModel()),
            Setting(name: "1M PHY, 7.5 ms, DLE 251, MTU 247", link: LinkModel(phy: .le1M)),
            Setting(
                name: "1M PHY, 30 ms, DLE 27, MTU 23 (Linux defaults)",
                link: LinkModel(phy: .le1M, connectionInterval: .milliseconds(30), dataLength: 27, mtu: 23)),
        ]
        print("DFU of a \(imageSize / 1024) KiB image in the simulator's BLE link model (virtual time)")
        for setting in settings {
            let ceiling = setting.link.ceiling(valueLength: min(setting.link.mtu, 247) - 3)
            let legacyCeiling = setting.link.ceiling(valueLength: 20)
            print("\n\(setting.name): raw ceiling \(kB(ceiling)) kB/s (\(kB(legacyCeiling)) kB/s with 20-byte writes)")
            for (prn, flash) in [(UInt16(0), FlashTiming.nRF52), (12, .nRF52), (0, instantFlash), (12, instantFlash)] {
                let result = try await secure(image, link: setting.link, prn: prn, flash: flash)
                let rate = Double(imageSize) / result.dataTime.seconds
                let bound = secureBound(objects: result.objects, link: setting.link, ceiling: ceiling)
                print(
                    "  Secure PRN \(String(prn).leftPadded(2)), \(flash == .nRF52 ? "nRF52 flash " : "instant flash"): \(kB(rate)) kB/s = \(percent(rate / ceiling)) of the ceiling, "
                        + "\(percent(bound.seconds / result.dataTime.seconds)) of the round-trip bound "
                        + "(\(kB(Double(imageSize) / bound.seconds)) kB/s), "
                        + "\(String(format1(Double(result.requests) / Double(result.objects)))) requests per 4 KiB object"
                )
            }
            let legacy = try await legacyRun(image, link: setting.link)
            let legacyRate = Double(imageSize) / legacy.dataTime.seconds
            print(
                "  Legacy PRN 10: \(kB(legacyRate)) kB/s = \(percent(legacyRate / legacyCeiling)) of the 20-byte ceiling, "
                    + "\(legacy.requests) requests in all")
        }
    }

    /// The time Secure DFU cannot beat on this link: per object, the data at the raw ceiling plus its three
    /// mandatory control exchanges (Create, Calculate Checksum, Execute), each at least two connection events
    /// (request in one, response in the next; dfu-protocols.md §4.3).
    static func secureBound(objects: Int, link: LinkModel, ceiling: Double) -> Duration {
        let data = Duration.milliseconds(Int64(Double(imageSize) / ceiling * 1000))
        return data + link.connectionInterval * (objects * 3 * 2)
    }

    static func secure(_ image: [UInt8], link: LinkModel, prn: UInt16, flash: FlashTiming) async throws -> Measurement {
        let command = InitCommand(
            fwVersion: 1, hwVersion: 52, sdReq: [0x101], type: .application, sdSize: 0, blSize: 0,
            appSize: UInt32(image.count), hash: InitCommand.Hash(sha256Of: image), isDebug: false)
        var options = SecureBootloaderOptions()
        options.softDeviceFWID = 0x101
        options.updateCapacity = 0x8_0000
        var simulator = SimulatorConfiguration(bootloader: .secure(options))
        simulator.flash = flash
        let device = SimulatedDevice(configuration: simulator)
        var configuration = DFUConfiguration()
        configuration.packetReceiptNotificationInterval = prn
        let part = try DFUFirmware.Part(
            imageType: .application, initPacket: SecureInitPacket(initCommand: command).encoded(), image: image)
        return try await run(
            part, on: device, link: link, configuration: configuration, objects: (image.count + 4095) / 4096)
    }

    static func legacyRun(_ image: [UInt8], link: LinkModel) async throws -> Measurement {
        var options = LegacyBootloaderOptions(generation: .sdk11)
        options.bankSize = 0x4_0000
        let device = SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .legacy(options)))
        let part = try DFUFirmware.Part(
            imageType: .application, initPacket: LegacyInitPacket(image: image).encoded(), image: image)
        return try await run(part, on: device, link: link, configuration: DFUConfiguration(), objects: 1)
    }

    static func run(
        _ part: DFUFirmware.Part,
        on device: SimulatedDevice,
        link: LinkModel,
        configuration: DFUConfiguration,
        objects: Int
    ) async throws -> Measurement {
        let transport = SimulatedTransport(device: device, link: link)
        guard let advertised = device.advertisement else { throw BenchmarkError.notAdvertising }
        let controller = DFUController(
            firmware: try DFUFirmware(parts: [part]),
            target: try BluetoothAddress(parsing: advertised.address.description),
            configuration: configuration)
        var dataStart: Duration?
        var requestsAtStart = 0
        let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { event in
            if case .phase(let report) = event, report.phase == .sendingFirmware, dataStart == nil {
                dataStart = report.elapsed
                requestsAtStart = transport.requestCount
            }
        }
        guard case .completed = outcome, let dataStart else { throw BenchmarkError.failed("\(outcome)") }
        let end = transport.clock.now.offset
        return Measurement(
            dataTime: end - dataStart, requests: transport.requestCount - requestsAtStart, objects: objects)
    }

    enum BenchmarkError: Error {
        case notAdvertising
        case failed(String)
    }

    static func kB(_ bytesPerSecond: Double) -> String { format1(bytesPerSecond / 1000) }
    static func percent(_ ratio: Double) -> String { format1(ratio * 100) + " %" }
    static func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

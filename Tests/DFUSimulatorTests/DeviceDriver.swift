import Checksums
import DFUSimulator
import DeviceLink
import Testing

/// Drives a ``SimulatedDevice`` step by step in virtual time and keeps the whole trace.
struct DeviceDriver {
    var device: SimulatedDevice
    var time: Duration = .zero
    var trace: [SimulatorEvent] = []

    init(_ configuration: SimulatorConfiguration) {
        device = SimulatedDevice(configuration: configuration)
    }

    private mutating func keep(_ events: [SimulatorEvent]) -> [SimulatorOutput] {
        trace += events
        return events.map(\.output)
    }

    @discardableResult
    mutating func connect(mtu: Int = 23) -> [SimulatorOutput] { keep(device.connect(mtu: mtu, at: time)) }

    @discardableResult
    mutating func subscribe(_ role: CharacteristicRole) -> [SimulatorOutput] {
        keep(device.enableNotifications(role: role, at: time))
    }

    @discardableResult
    mutating func write(_ role: CharacteristicRole, _ bytes: [UInt8], withResponse: Bool) -> [SimulatorOutput] {
        keep(device.write(role: role, bytes: bytes, withResponse: withResponse, at: time))
    }

    @discardableResult
    mutating func read(_ role: CharacteristicRole) -> [SimulatorOutput] { keep(device.read(role: role, at: time)) }

    @discardableResult
    mutating func disconnect() -> [SimulatorOutput] { keep(device.disconnect(at: time)) }

    /// Lets `span` pass.
    @discardableResult
    mutating func wait(_ span: Duration) -> [SimulatorOutput] {
        time += span
        return keep(device.advance(to: time))
    }

    /// Advances through every held-back event due within `horizon` (not the inactivity timeout).
    @discardableResult
    mutating func settle(within horizon: Duration = .seconds(5)) -> [SimulatorOutput] {
        var outputs: [SimulatorOutput] = []
        let limit = time + horizon
        for _ in 0..<10_000 {
            guard let next = device.nextEventTime, next <= limit else { break }
            time = max(time, next)
            outputs += keep(device.advance(to: time))
        }
        return outputs
    }

    /// Writes a control-point request and returns every notification on `role` until things settle.
    mutating func request(_ bytes: [UInt8], on role: CharacteristicRole = .secureControlPoint) -> [[UInt8]] {
        let outputs = write(role, bytes, withResponse: true) + settle()
        return notifications(outputs, on: role)
    }

    /// Writes packets without response, one every `interval` (1 ms: a few packets per connection event),
    /// and returns the notifications seen meanwhile.
    mutating func send(
        _ bytes: [UInt8],
        chunk: Int,
        on role: CharacteristicRole = .securePacket,
        interval: Duration = .milliseconds(1)
    ) -> [[UInt8]] {
        var notified: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            if offset > 0 && interval > .zero { notified += notifications(wait(interval), on: nil) }
            let end = min(offset + chunk, bytes.count)
            notified += notifications(write(role, Array(bytes[offset..<end]), withResponse: false), on: nil)
            offset = end
        }
        return notified
    }

    /// Runs a complete Secure DFU of `image` with `initPacket`, as a well-behaved client does, and returns the
    /// notifications seen.
    ///
    /// Expects a connected, subscribed link.
    mutating func secureTransfer(
        initPacket: [UInt8],
        image: [UInt8],
        payload: Int = 20,
        prn: UInt16 = 0,
        delayAfterCreate: Duration = .milliseconds(400)
    ) -> [[UInt8]] {
        var seen: [[UInt8]] = []
        seen += request([0x01, 0x01] + le32(initPacket.count))  // Create command
        seen += request([0x02, 0x00, 0x00])  // PRN off
        seen += send(initPacket, chunk: payload)
        seen += request([0x03])  // Calculate checksum
        seen += request([0x04])  // Execute
        seen += request([0x02, UInt8(prn & 0xFF), UInt8(prn >> 8)])  // PRN
        var offset = 0
        while offset < image.count {
            let size = min(4096, image.count - offset)
            seen += request([0x01, 0x02] + le32(size))  // Create data
            seen += notifications(wait(delayAfterCreate), on: nil)
            seen += send(Array(image[offset..<offset + size]), chunk: payload)
            seen += request([0x03])  // Calculate checksum
            seen += request([0x04])  // Execute
            offset += size
        }
        return seen
    }

    func notifications(_ outputs: [SimulatorOutput], on role: CharacteristicRole?) -> [[UInt8]] {
        outputs.compactMap { output in
            guard case .notification(let notifiedRole, let bytes) = output, role == nil || notifiedRole == role else {
                return nil
            }
            return bytes
        }
    }

    /// The trace without times, for comparing two runs.
    var outputs: [SimulatorOutput] { trace.map(\.output) }
}

/// `60 03 01 offset crc`: a checksum response or PRN for `bytes`.
func checksumResponse(_ bytes: [UInt8]) -> [UInt8] {
    [0x60, 0x03, 0x01] + le32(bytes.count) + le32(Int(CRC32.checksum(bytes)))
}

extension SimulatorConfiguration {
    /// A Secure bootloader device with an installed application and unbonded buttonless service.
    static func secure(
        options: SecureBootloaderOptions = SecureBootloaderOptions(),
        faults: FaultPlan = FaultPlan(),
        application: [UInt8]? = nil
    ) -> SimulatorConfiguration {
        SimulatorConfiguration(
            bootloader: .secure(options),
            buttonless: .secureWithoutBonds,
            installedApplication: application,
            faults: faults
        )
    }
}

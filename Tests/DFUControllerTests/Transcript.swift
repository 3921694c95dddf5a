import Checksums
import DeviceLink
import Testing

@testable import DFUController

/// One line of a controller transcript (style §32): an input to the controller, or an action it must return.
enum Line: Sendable {
    /// The driver starts the update.
    case start
    /// The adapter connected and discovered these characteristics.
    case connected(mtu: Int, [DFUCharacteristic])
    /// The adapter connected to this address (the request's alternative) and discovered these characteristics.
    case connectedAt(mtu: Int, [DFUCharacteristic], BluetoothAddress)
    /// The target notifies (or indicates) on a characteristic.
    case notifies(DFUCharacteristic, [UInt8])
    /// A read returns this value.
    case reads([UInt8])
    /// A write with response (or a notification enable) completed.
    case acknowledged
    /// Time passes.
    case passes(Duration)
    /// A timer fires.
    case fires(DFUTimer)
    /// The user cancels.
    case cancels
    /// The link drops.
    case disconnects
    /// A transport operation fails.
    case transportFails(TransportFailure)
    /// The controller returns this action (consecutive lines form one input's whole answer, in order).
    case does(DFUAction)

    var isInput: Bool {
        if case .does = self { false } else { true }
    }

    var trace: String {
        switch self {
        case .start: "> start"
        case .connected(let mtu, let characteristics): "> connected mtu \(mtu) \(characteristics)"
        case .connectedAt(let mtu, let characteristics, let address):
            "> connected to \(address) mtu \(mtu) \(characteristics)"
        case .notifies(let characteristic, let bytes): "> target notifies \(characteristic) \(hex(bytes))"
        case .reads(let bytes): "> read returns \(hex(bytes))"
        case .acknowledged: "> write acknowledged"
        case .passes(let duration): "> time passes \(duration)"
        case .fires(let timer): "> timer \(timer) fires"
        case .cancels: "> user cancels"
        case .disconnects: "> link drops"
        case .transportFails(let failure): "> transport fails: \(failure)"
        case .does(let action): "< \(describe(action))"
        }
    }
}

/// Writes a request with response.
func writes(_ characteristic: DFUCharacteristic, _ bytes: String) -> Line {
    .does(.write(characteristic, hex(bytes)))
}

/// Writes packets without response, split into `size`-byte writes.
func sends(_ characteristic: DFUCharacteristic, _ bytes: ArraySlice<UInt8>, size: Int) -> Line {
    var writes: [[UInt8]] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
        writes.append(Array(bytes[start..<min(start + size, bytes.endIndex)]))
        start += size
    }
    return .does(.writePackets(characteristic, writes))
}

/// Starts a timer.
func arms(_ timer: DFUTimer, _ deadline: Duration) -> Line {
    .does(.startTimer(timer, deadline: deadline))
}

/// The target notifies on a characteristic, bytes as hex.
func notifies(_ characteristic: DFUCharacteristic, _ bytes: String) -> Line {
    .notifies(characteristic, hex(bytes))
}

/// Parses space-separated hex pairs.
func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { pair in
        guard let byte = UInt8(pair, radix: 16) else { preconditionFailure("bad hex '\(pair)' in test") }
        return byte
    }
}

/// Formats bytes as space-separated hex pairs.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }.joined(separator: " ")
}

/// Little-endian u32 as hex pairs, for building notifications.
func le32(_ value: UInt32) -> String {
    hex([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
}

/// Little-endian u32 of a byte count.
func le32(_ value: Int) -> String { le32(UInt32(value)) }

/// CRC-32 of a prefix of `bytes`.
func crc(_ bytes: [UInt8], _ count: Int) -> UInt32 {
    CRC32.checksum(Array(bytes[..<count]))
}

private func describe(_ action: DFUAction) -> String {
    switch action {
    case .write(let characteristic, let bytes): "write \(characteristic) \(hex(bytes))"
    case .writePackets(let characteristic, let writes):
        "packets \(characteristic) \(writes.count) writes, \(writes.map(\.count)) bytes, first \(hex(writes.first ?? []))"
    case .startTimer(let timer, let deadline): "timer \(timer) at \(deadline)"
    case .cancelTimer(let timer): "cancel timer \(timer)"
    case .fail(let error): "fail: \(error)"
    default: "\(action)"
    }
}

/// Runs `lines` against `controller` and checks every action, recording a `<`/`>` trace on mismatch.
///
/// - Parameters:
///   - controller: The controller; left in its final state.
///   - lines: Inputs, each followed by the exact actions it must return.
///   - ignoringProgressAndLogs: Drops `.progress` and `.log` actions before comparing, for scripts about wire bytes.
///   - sourceLocation: Where failures are reported.
func run(
    _ controller: inout DFUController, _ lines: [Line], ignoringProgressAndLogs: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    var now = Duration.zero
    var actual: [String] = []
    var expected: [String] = []
    var index = 0
    while index < lines.count {
        let input = lines[index]
        index += 1
        var returned: [DFUAction]
        switch input {
        case .start: returned = controller.start(at: now)
        case .connected(let mtu, let characteristics):
            returned = controller.connected(mtu: mtu, characteristics: Set(characteristics), at: now)
        case .connectedAt(let mtu, let characteristics, let address):
            returned = controller.connected(
                mtu: mtu, characteristics: Set(characteristics), address: address, at: now)
        case .notifies(let characteristic, let bytes):
            returned = controller.receive(notification: bytes, from: characteristic, at: now)
        case .reads(let bytes): returned = controller.readCompleted(bytes, at: now)
        case .acknowledged: returned = controller.writeCompleted(at: now)
        case .passes(let duration):
            now += duration
            returned = []
        case .fires(let timer): returned = controller.timerFired(timer, at: now)
        case .cancels: returned = controller.cancel(at: now)
        case .disconnects: returned = controller.transportDisconnected(at: now)
        case .transportFails(let failure): returned = controller.transportFailed(failure, at: now)
        case .does:
            Issue.record("transcript line \(index) is an action without an input", sourceLocation: sourceLocation)
            return
        }
        if ignoringProgressAndLogs {
            returned = returned.filter { action in
                switch action {
                case .progress, .log: false
                default: true
                }
            }
        }
        actual.append(input.trace)
        expected.append(input.trace)
        actual += returned.map { Line.does($0).trace }
        var wanted: [DFUAction] = []
        while index < lines.count, case .does(let action) = lines[index] {
            wanted.append(action)
            index += 1
        }
        expected += wanted.map { Line.does($0).trace }
        if returned != wanted {
            let firstDifference =
                (0..<min(returned.count, wanted.count)).first { returned[$0] != wanted[$0] }
                ?? min(returned.count, wanted.count)
            Issue.record(
                """
                transcript diverged after input '\(input.trace)' (action \(firstDifference)):
                expected:
                \(expected.joined(separator: "\n"))
                actual:
                \(actual.joined(separator: "\n"))
                first differing actions:
                expected: \(firstDifference < wanted.count ? "\(wanted[firstDifference])" : "nothing")
                actual:   \(firstDifference < returned.count ? "\(returned[firstDifference])" : "nothing")
                """, sourceLocation: sourceLocation)
            return
        }
    }
}

/// A deterministic test image of `count` bytes.
func testImage(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* Int(seed) &+ 3) }
}

/// An address for tests.
func address(_ text: String) -> BluetoothAddress {
    do {
        return try BluetoothAddress(parsing: text)
    } catch {
        preconditionFailure("bad test address \(text)")
    }
}

/// A single-part firmware.
func firmware(_ type: ImageType = .application, initPacket: [UInt8], image: [UInt8]) -> DFUFirmware {
    do {
        return try DFUFirmware(parts: [DFUFirmware.Part(imageType: type, initPacket: initPacket, image: image)])
    } catch {
        preconditionFailure("bad test firmware: \(error)")
    }
}

// libFuzzer harness for the DFU notification and response parsers and the controller that consumes them. Not a
// package target: scripts/fuzz.sh compiles it with Sources/Checksums and Sources/DFUController into one module.

/// Two modes, chosen by the first byte.
///
/// - Even: decodes the rest as a Secure response (answering each opcode), a legacy notification and a buttonless
///   indication; a decoded value must come from bytes that carry its header.
/// - Odd: drives a ``DFUController`` (Secure or legacy, by the second byte) through start and connection, then
///   feeds the rest as a script of device events: notifications of fuzzed bytes, write completions, timer firings,
///   disconnections. The machine must never trap, must stop after a `finish` or `fail`, and is bounded in steps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 2 else { return 0 }
    if input[0] & 1 == 0 {
        decodeAll(Array(input.dropFirst()))
    } else {
        drive(legacy: input[1] & 1 == 1, script: Array(input.dropFirst(2)))
    }
    return 0
}

private func decodeAll(_ bytes: [UInt8]) {
    for opcode in SecureOpcode.allCases {
        if let response = try? SecureResponse.decode(bytes, answering: opcode) {
            precondition(bytes.count >= 3 && bytes[0] == 0x60 && bytes[1] == opcode.rawValue, "header not checked")
            _ = response
        }
    }
    do {
        switch try LegacyNotification.decode(bytes) {
        case .response: precondition(bytes.count >= 3 && bytes[0] == 0x10, "legacy response header not checked")
        case .packetReceipt: precondition(bytes.count >= 5 && bytes[0] == 0x11, "receipt header not checked")
        case .receivedImageSize:
            precondition(bytes.count >= 7 && bytes[0] == 0x10 && bytes[1] == 0x07, "image size header not checked")
        }
    } catch {
        _ = error.description
    }
    for opcode in ButtonlessOpcode.allCases {
        if (try? ButtonlessResultCode.decode(bytes, answering: opcode)) != nil {
            precondition(bytes.count >= 3 && bytes[0] == 0x20 && bytes[1] == opcode.rawValue, "header not checked")
        }
    }
}

/// What the driver may report next: the controller's contract allows a completion only for an action it asked for.
private struct Pending {
    var connect = false
    var reads = 0
    var writes = 0
    var timers: Set<DFUTimer> = []
    var isFinished = false

    mutating func take(_ actions: [DFUAction]) {
        for action in actions {
            switch action {
            case .connect: connect = true
            case .read: reads += 1
            case .write, .writePackets, .enableNotifications: writes += 1
            case .startTimer(let timer, _): timers.insert(timer)
            case .cancelTimer(let timer): timers.remove(timer)
            case .finish, .fail:
                precondition(!isFinished, "a second finish or fail")
                isFinished = true
            case .disconnect, .progress, .log: break
            }
        }
    }
}

private func drive(legacy: Bool, script: [UInt8]) {
    let image = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let initPacket: [UInt8] = legacy ? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0xFE, 0xFF, 0, 0] : [1]
    guard let part = try? DFUFirmware.Part(imageType: .application, initPacket: initPacket, image: image),
        let firmware = try? DFUFirmware(parts: [part])
    else { preconditionFailure("the harness's own firmware is refused") }
    var controller = DFUController(firmware: firmware, target: BluetoothAddress((0xC0, 0xDE, 0, 0, 0, 1)))
    var now = Duration.zero
    var pending = Pending()
    let characteristics: Set<DFUCharacteristic> =
        legacy ? [.legacyControlPoint, .legacyPacket, .legacyVersion] : [.secureControlPoint, .securePacket]
    let controlPoint: DFUCharacteristic = legacy ? .legacyControlPoint : .secureControlPoint
    pending.take(controller.start(at: now))
    var index = 0
    var steps = 0
    func bytes(maximum: UInt8) -> [UInt8] {
        let length = index < script.count ? Int(script[index] & maximum) : 0
        index += 1
        defer { index += length }
        return Array(script[min(index, script.count)..<min(index + length, script.count)])
    }
    while index < script.count, steps < 256 {
        steps += 1
        let command = script[index]
        index += 1
        now += .milliseconds(Int(command >> 3))
        if pending.connect {
            pending.connect = false
            pending.take(controller.connected(mtu: 23 + Int(command), characteristics: characteristics, at: now))
            continue
        }
        switch command & 7 {
        case 0, 1, 2: pending.take(controller.receive(notification: bytes(maximum: 0x1F), from: controlPoint, at: now))
        case 3 where pending.writes > 0, 4 where pending.writes > 0:
            pending.writes -= 1
            pending.take(controller.writeCompleted(at: now))
        case 5:
            guard let timer = pending.timers.first else { continue }
            pending.timers.remove(timer)
            pending.take(controller.timerFired(timer, at: now))
        case 6 where pending.reads > 0:
            pending.reads -= 1
            pending.take(controller.readCompleted(bytes(maximum: 0x07), at: now))
        case 7:
            pending.writes = 0
            pending.reads = 0
            pending.take(controller.transportDisconnected(at: now))
        default: continue
        }
    }
}

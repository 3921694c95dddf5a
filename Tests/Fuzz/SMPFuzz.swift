// libFuzzer harness for what nrfloader reads from an SMP device: the CBOR decoder, SMP frames, the answers' typed
// readings, and the serial console framing. Not a package target: scripts/fuzz.sh compiles it with Sources/SMP into
// one module.

/// Two modes, chosen by the first byte.
///
/// - Even: the rest is one CBOR item and one SMP frame. A decoded item must encode back to an item that decodes to
///   itself, and no map in it may repeat a key (the decoder refuses such maps, as zcbor does); a decoded frame's body
///   is read as every answer the update and the verbs read.
/// - Odd: the rest is a serial byte stream, fed to the console decoder in two pieces; every frame it yields has
///   passed its CRC and is decoded as an SMP frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    if mode & 1 == 0 {
        decodeItem(rest)
        decodeFrame(rest)
    } else {
        var decoder = SMPSerialDecoder(maximumLineLength: 512)
        let split = rest.isEmpty ? 0 : Int(mode >> 1) % (rest.count + 1)
        for event in decoder.receive(rest[..<split]) + decoder.receive(rest[split...]) {
            if case .frame(let frame) = event { decodeFrame(frame) }
        }
    }
    return 0
}

private func decodeItem(_ bytes: [UInt8]) {
    guard let value = try? CBORDecoder().decode(bytes) else { return }
    precondition(hasUniqueKeys(value), "a map with a repeated key was accepted")
    for style in [CBOREncoder.ContainerStyle.definite, .indefinite] {
        let again = try? CBORDecoder().decode(CBOREncoder(containerStyle: style).encode(value))
        precondition(again == value, "\(value) does not survive encoding (\(style))")
    }
}

private func hasUniqueKeys(_ value: CBORValue) -> Bool {
    switch value {
    case .map(let entries):
        return Set(entries.map(\.key)).count == entries.count
            && entries.allSatisfy { hasUniqueKeys($0.key) && hasUniqueKeys($0.value) }
    case .array(let items): return items.allSatisfy(hasUniqueKeys)
    case .unsigned, .negative, .bytes, .text, .bool, .null: return true
    }
}

private func decodeFrame(_ bytes: [UInt8]) {
    guard let frame = try? SMPFrame(decoding: bytes) else { return }
    let body = frame.body
    _ = try? SMPResponse.error(in: body)
    _ = try? MCUmgrParameters(body: body)
    if let answer = try? ImageUploadResponse(body: body) {
        precondition((0...Int(UInt32.max)).contains(answer.offset), "offset \(answer.offset) out of range")
    }
    if let state = try? ImageStateResponse(body: body) {
        precondition(state.slots.allSatisfy { (0...1).contains($0.slot) }, "slot out of range")
    }
    _ = try? EchoResponse(body: body)
}

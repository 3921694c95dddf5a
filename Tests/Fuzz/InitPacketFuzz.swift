// libFuzzer harness for the init packet decoders: Secure DFU (protobuf, dfu-cc.proto) and legacy (packed struct).
// Not a package target: scripts/fuzz.sh compiles it with Sources/Checksums and Sources/DFUPackage into one module.

/// Decodes the input (after a selector byte) as a Secure or a legacy init packet and checks: no crash or sanitizer
/// report; every error has a description; a legacy packet that decodes re-encodes to exactly its input (the layout has no
/// freedom); a Secure packet that decodes re-encodes to bytes that decode to the same packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInitPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = all.first else { return 0 }
    let input = Array(all.dropFirst())
    do {
        if selector & 1 == 0 {
            let packet = try SecureInitPacket(decoding: input, file: "fuzz.dat")
            let again = try SecureInitPacket(decoding: packet.encoded(), file: "re-encoded.dat")
            precondition(again == packet, "Secure init packet does not round-trip")
            _ = try SecureInitPacket.signedMessage(in: input, file: "fuzz.dat")
            if let command = packet.command.initCommand {
                _ = try? command.declaredImageSize(initPacketFile: "fuzz.dat")
                try? command.validate(image: Array(input.prefix(64)), imageFile: "fuzz.bin", initPacketFile: "fuzz.dat")
            }
        } else {
            let packet = try LegacyInitPacket(decoding: input, file: "fuzz.dat")
            precondition(packet.encoded() == input, "legacy init packet does not re-encode to its input")
            _ = packet.signedMessage
            try? packet.validate(image: Array(input.prefix(64)), imageFile: "fuzz.bin")
        }
    } catch {
        _ = error.description
    }
    return 0
}

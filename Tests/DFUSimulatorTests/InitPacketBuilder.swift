import Checksums

/// Builds Secure DFU init packets (`dfu-cc.proto`) for tests, with its own tiny protobuf encoder.
struct InitPacketBuilder {
    var fwVersion: UInt32? = 1
    var hwVersion: UInt32? = 52
    var sdReq: [UInt32] = [0xA8]
    var type: UInt32? = 0
    var sdSize: UInt32?
    var blSize: UInt32?
    var appSize: UInt32?
    var hashType: UInt32? = 3
    var hash: [UInt8]?
    var isDebug: Bool?

    /// An application init packet for `image`: type 0, app_size, reversed SHA-256.
    static func application(for image: [UInt8], version: UInt32 = 1) -> InitPacketBuilder {
        var builder = InitPacketBuilder()
        builder.fwVersion = version
        builder.appSize = UInt32(image.count)
        builder.hash = Array(SHA256.hash(image).reversed())
        return builder
    }

    /// The serialized InitCommand.
    var initCommand: [UInt8] {
        var bytes: [UInt8] = []
        if let fwVersion { bytes += varintField(1, UInt64(fwVersion)) }
        if let hwVersion { bytes += varintField(2, UInt64(hwVersion)) }
        if !sdReq.isEmpty { bytes += lengthField(3, sdReq.flatMap { varint(UInt64($0)) }) }
        if let type { bytes += varintField(4, UInt64(type)) }
        if let sdSize { bytes += varintField(5, UInt64(sdSize)) }
        if let blSize { bytes += varintField(6, UInt64(blSize)) }
        if let appSize { bytes += varintField(7, UInt64(appSize)) }
        if let hashType, let hash { bytes += lengthField(8, varintField(1, UInt64(hashType)) + lengthField(2, hash)) }
        if let isDebug { bytes += varintField(9, isDebug ? 1 : 0) }
        return bytes
    }

    /// `Command { op_code: INIT, init }`.
    var command: [UInt8] { varintField(1, 1) + lengthField(2, initCommand) }

    /// `Packet { command }`: an unsigned .dat.
    var unsigned: [UInt8] { lengthField(1, command) }

    /// `Packet { signed_command { command, signature_type, signature } }`.
    func signed(signatureType: UInt32 = 0, signature: [UInt8]) -> [UInt8] {
        lengthField(2, lengthField(1, command) + varintField(2, UInt64(signatureType)) + lengthField(3, signature))
    }
}

func varint(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = value
    repeat {
        let low = UInt8(rest & 0x7F)
        rest >>= 7
        bytes.append(rest == 0 ? low : low | 0x80)
    } while rest != 0
    return bytes
}

func varintField(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }

func lengthField(_ number: UInt64, _ value: [UInt8]) -> [UInt8] {
    varint(number << 3 | 2) + varint(UInt64(value.count)) + value
}

/// Little-endian u32 bytes.
func le32(_ value: Int) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: value) >> (8 * $0)) }
}

/// A deterministic test image of `count` bytes.
func testImage(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ ($0 >> 8)) }
}

internal import Checksums

/// A legacy DFU bootloader (SDK 4.3–5 "v1" or SDK 9–11 version 0.8): `dfu_transport_ble.c` plus the bank
/// state of `dfu_dual_bank.c`.
struct LegacyBootloader {
    /// What the sizes in the start packet announced.
    struct Start: Equatable {
        var imageType: UInt8
        var softDeviceSize: Int
        var bootloaderSize: Int
        var applicationSize: Int
        var total: Int { softDeviceSize + bootloaderSize + applicationSize }
    }

    /// The bank state (`m_dfu_state` and what it holds).
    private enum Bank: Equatable {
        case idle
        /// Sizes accepted and flash erased (or erasing); no complete init packet yet.
        case prepared(Start)
        /// Init packet accepted (`crc` is the image CRC16 it carries; v1 may have none).
        case initialized(Start, crc: UInt16?)
        case receiving(Start, crc: UInt16?, image: [UInt8])
        case received(Start, crc: UInt16?, image: [UInt8])
        case validated(Start, image: [UInt8])
    }

    /// What the next PKT write is (`m_pkt_type`).
    private enum PacketTarget: Equatable {
        case none
        case startPacket(imageType: UInt8)
        case initPacket
        case firmware
    }

    let options: LegacyBootloaderOptions
    private var bank = Bank.idle
    private var packetTarget = PacketTarget.none
    /// SDK 7+ init packet buffer: each write zero-padded to whole words (`init_data_process`).
    private var initBuffer: [UInt8] = []
    private var prnTarget: UInt16 = 0
    private var prnCounter: UInt16 = 0
    private var bytesReceived = 0

    private static let initBufferSize = 128

    init(options: LegacyBootloaderOptions) {
        self.options = options
    }

    /// The Version characteristic value, `nil` for v1 which has none.
    var version: [UInt8]? {
        switch options.generation {
        case .v1: nil
        case .sdk11: [0x08, 0x00]
        }
    }

    // MARK: Control point

    mutating func controlPoint(_ request: [UInt8], _ context: inout DeviceContext) {
        guard let opcodeByte = request.first else {
            context.violation("empty control point write")
            return
        }
        guard let opcode = LegacyDFUOpcode(rawValue: opcodeByte) else {
            context.violation("unknown opcode 0x\(hexByte(opcodeByte))")
            respond(opcodeByte, .notSupported, &context)
            return
        }
        switch opcode {
        case .startDFU:
            if options.generation == .sdk11 && request.count < 2 {
                context.violation("start DFU without image type")
                respond(opcodeByte, .operationFailed, &context)
                return
            }
            packetTarget = .startPacket(imageType: request.count >= 2 ? request[1] : 0x04)
        case .initializeDFUParameters:
            initialize(request, &context)
        case .receiveFirmwareImage:
            packetTarget = .firmware
        case .validateFirmware:
            validate(&context)
        case .activateImageAndReset:
            activate(&context)
        case .reset:
            context.note("reset requested")
            context.reset(.terminatedByDevice, boot: .applicationIfValid)
        case .reportReceivedImageSize:
            respond(opcodeByte, .success, &context, payload: littleEndian(bytesReceived))
        case .packetReceiptNotificationRequest:
            guard request.count >= 3 else {
                context.violation("PRN request shorter than 3 bytes")
                respond(opcodeByte, .notSupported, &context)
                return
            }
            prnTarget = UInt16(request[1]) | UInt16(request[2]) << 8
            prnCounter = prnTarget
        case .response, .packetReceiptNotification:
            context.violation("device-to-host opcode \(opcode) written by the client")
            respond(opcodeByte, .notSupported, &context)
        }
    }

    private mutating func initialize(_ request: [UInt8], _ context: inout DeviceContext) {
        let op = LegacyDFUOpcode.initializeDFUParameters.rawValue
        switch options.generation {
        case .v1:
            packetTarget = .initPacket
        case .sdk11:
            guard request.count >= 2 else {
                context.violation("initialize DFU parameters without 00/01")
                respond(op, .operationFailed, &context)
                return
            }
            if request[1] == 0x00 {
                packetTarget = .initPacket
                initBuffer = []
                return
            }
            packetTarget = .initPacket
            guard case .prepared(let start) = bank else {
                context.violation("init packet completed before a successful start")
                respond(op, .invalidState, &context)
                return
            }
            switch checkInitPacket(initBuffer) {
            case .success(let crc):
                bank = .initialized(start, crc: crc)
                respond(op, .success, &context)
            case .failure(let reason):
                context.note("init packet rejected: \(reason)")
                respond(op, .operationFailed, &context)
            }
        }
    }

    /// SDK 11 `dfu_init_template.c` prevalidation; returns the image CRC16.
    private func checkInitPacket(_ bytes: [UInt8]) -> Result<UInt16, LegacyInitRejection> {
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        guard bytes.count >= 12 else { return .failure(.init(reason: "\(bytes.count) bytes, too short")) }
        let count = Int(u16(8))
        guard bytes.count >= 10 + 2 * count + 2 else {
            return .failure(.init(reason: "\(bytes.count) bytes, too short for \(count) SoftDevice ids and CRC"))
        }
        let deviceType = u16(0)
        let revision = u16(2)
        if options.deviceType != 0xFFFF && deviceType != options.deviceType {
            return .failure(.init(reason: "device type 0x\(String(deviceType, radix: 16)) does not match"))
        }
        if options.deviceRevision != 0xFFFF && revision != options.deviceRevision {
            return .failure(.init(reason: "device revision 0x\(String(revision, radix: 16)) does not match"))
        }
        let softDevices = (0..<count).map { u16(10 + 2 * $0) }
        guard softDevices.contains(options.softDeviceFWID) || softDevices.contains(0xFFFE) else {
            return .failure(.init(reason: "SoftDevice list \(softDevices) lacks the running one"))
        }
        return .success(u16(10 + 2 * count))
    }

    private mutating func validate(_ context: inout DeviceContext) {
        let op = LegacyDFUOpcode.validateFirmware.rawValue
        guard case .received(let start, let crc, let image) = bank else {
            context.violation("validate before the whole image was received")
            respond(op, .invalidState, &context)
            return
        }
        if let crc, CRC16.checksum(image) != crc {
            context.note("image CRC16 0x\(String(CRC16.checksum(image), radix: 16)) != 0x\(String(crc, radix: 16))")
            respond(op, .crcError, &context)
            return
        }
        bank = .validated(start, image: image)
        respond(op, .success, &context)
    }

    private mutating func activate(_ context: inout DeviceContext) {
        guard case .validated(let start, let image) = bank else {
            context.violation("activate without a validated image; the bootloader just resets")
            context.reset(.terminatedByDevice, boot: .applicationIfValid)
            return
        }
        var rest = image[...]
        for (type, size, bit) in [
            (FirmwareType.softDevice, start.softDeviceSize, UInt8(0x01)),
            (.bootloader, start.bootloaderSize, 0x02),
            (.application, start.applicationSize, 0x04),
        ] where start.imageType & bit != 0 && size > 0 {
            context.storage.images[type] = Array(rest.prefix(size))
            context.storage.activated[type] = Array(rest.prefix(size))
            rest = rest.dropFirst(size)
        }
        context.note("activated image type 0x\(hexByte(start.imageType)), \(image.count) bytes")
        let boot: BootRequest =
            start.imageType & 0x04 != 0 ? .applicationIfValid : .bootloader(viaButtonless: false)
        context.reset(.terminatedByDevice, boot: boot, at: context.flash.idle(at: context.now))
    }

    // MARK: Packet

    mutating func packet(_ bytes: [UInt8], _ context: inout DeviceContext) {
        switch packetTarget {
        case .none:
            context.violation("packet write with no procedure started; ignored")
        case .startPacket(let imageType):
            start(imageType: imageType, sizes: bytes, &context)
        case .initPacket:
            initPacketWrite(bytes, &context)
        case .firmware:
            firmwareWrite(bytes, &context)
        }
    }

    private mutating func start(imageType: UInt8, sizes bytes: [UInt8], _ context: inout DeviceContext) {
        let op = LegacyDFUOpcode.startDFU.rawValue
        let expected = options.generation == .v1 ? 4 : 12
        guard bytes.count == expected else {
            context.violation("size packet of \(bytes.count) bytes, expected \(expected)")
            respond(op, .notSupported, &context)
            return
        }
        func u32(_ at: Int) -> Int {
            Int(
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
                    << 24)
        }
        let start =
            options.generation == .v1
            ? Start(imageType: 0x04, softDeviceSize: 0, bootloaderSize: 0, applicationSize: u32(0))
            : Start(imageType: imageType, softDeviceSize: u32(0), bootloaderSize: u32(4), applicationSize: u32(8))
        guard bank == .idle else {
            context.violation("start DFU while an earlier DFU is unfinished")
            respond(op, .invalidState, &context)
            return
        }
        let sizes = [start.softDeviceSize, start.bootloaderSize, start.applicationSize]
        if sizes.contains(where: { $0 % 4 != 0 }) || start.total == 0 {
            context.violation("image sizes \(sizes) are not non-zero multiples of 4")
            respond(op, .notSupported, &context)
            return
        }
        if start.imageType & 0x04 != 0 && start.imageType & 0x03 != 0 {
            context.violation("application combined with SoftDevice or bootloader (type 0x\(hexByte(start.imageType)))")
            respond(op, .notSupported, &context)
            return
        }
        if start.total > options.bankSize {
            respond(op, .dataSizeExceedsLimit, &context)
            return
        }
        bank = .prepared(start)
        bytesReceived = 0
        let erased = context.flash.erase(pages: context.flash.pages(for: start.total), at: context.now)
        context.note("erasing for \(start.total) bytes until \(erased)")
        respond(op, .success, &context, at: erased)
    }

    private mutating func initPacketWrite(_ bytes: [UInt8], _ context: inout DeviceContext) {
        let op = LegacyDFUOpcode.initializeDFUParameters.rawValue
        guard case .prepared(let start) = bank else {
            context.violation("init packet before a successful start")
            respond(op, .invalidState, &context)
            return
        }
        switch options.generation {
        case .v1:
            guard bytes.count >= 2 else {
                respond(op, .operationFailed, &context)
                return
            }
            bank = .initialized(start, crc: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
            respond(op, .success, &context)
        case .sdk11:
            let padded = bytes + Array(repeating: 0, count: (4 - bytes.count % 4) % 4)
            guard initBuffer.count + padded.count <= Self.initBufferSize else {
                respond(op, .dataSizeExceedsLimit, &context)
                return
            }
            if bytes.count % 4 != 0 {
                context.note("init write of \(bytes.count) bytes zero-padded to \(padded.count)")
            }
            initBuffer += padded
        }
    }

    private mutating func firmwareWrite(_ bytes: [UInt8], _ context: inout DeviceContext) {
        let op = LegacyDFUOpcode.receiveFirmwareImage.rawValue
        guard bytes.count % 4 == 0 else {
            context.violation("firmware write of \(bytes.count) bytes is not a multiple of 4")
            respond(op, .notSupported, &context)
            return
        }
        let start: Start
        let crc: UInt16?
        var image: [UInt8]
        switch bank {
        case .prepared(let value) where options.generation == .v1:
            (start, crc, image) = (value, nil, [])
        case .initialized(let value, let initCRC):
            (start, crc, image) = (value, initCRC, [])
        case .receiving(let value, let initCRC, let received):
            (start, crc, image) = (value, initCRC, received)
        case .idle, .prepared, .received, .validated:
            context.violation("firmware data before a successful init packet")
            respond(op, .invalidState, &context)
            return
        }
        guard image.count + bytes.count <= start.total else {
            context.violation("more firmware than the \(start.total) bytes announced")
            respond(op, .dataSizeExceedsLimit, &context)
            return
        }
        image += bytes
        bytesReceived += bytes.count
        let written = context.flash.write(bytes: bytes.count, at: context.now)
        if image.count == start.total {
            bank = .received(start, crc: crc, image: image)
            respond(op, .success, &context, at: written)
            return
        }
        bank = .receiving(start, crc: crc, image: image)
        guard prnTarget > 0 else { return }
        prnCounter &-= 1
        if prnCounter == 0 {
            prnCounter = prnTarget
            context.notify(
                .legacyControlPoint, [LegacyDFUOpcode.packetReceiptNotification.rawValue] + littleEndian(bytesReceived))
        }
    }

    private func respond(
        _ opcode: UInt8,
        _ status: LegacyDFUStatus,
        _ context: inout DeviceContext,
        payload: [UInt8] = [],
        at time: Duration? = nil
    ) {
        context.notify(
            .legacyControlPoint, [LegacyDFUOpcode.response.rawValue, opcode, status.rawValue] + payload, at: time)
    }
}

/// Why the SDK 11 init packet prevalidation refused a packet.
struct LegacyInitRejection: Error {
    var reason: String
}

private func littleEndian(_ value: Int) -> [UInt8] {
    let word = UInt32(truncatingIfNeeded: value)
    return (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
}

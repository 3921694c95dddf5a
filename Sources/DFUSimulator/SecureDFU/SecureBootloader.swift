/// The Secure DFU bootloader's request handling (nRF5 SDK 15–17 `nrf_dfu_req_handler.c` behind the BLE
/// transport `nrf_dfu_ble.c`).
struct SecureBootloader {
    /// The object type the last Select or Create named; Write, Checksum and Execute act on it.
    private enum CurrentObject {
        case command
        case data
        /// Select or Create named an unknown type; everything answers 0x05 until the next Select/Create.
        case invalid
    }

    let options: SecureBootloaderOptions
    var settings: SecureSettings
    var misalignedWritesDropped: Bool
    private var currentObject = CurrentObject.command
    private var prnTarget: UInt16 = 0
    private var prnCounter: UInt16 = 0
    /// Release times of PKT buffers waiting for their flash write.
    private var heldBuffers: [Duration] = []

    init(options: SecureBootloaderOptions, settings: SecureSettings, dropsMisalignedWrites: Bool) {
        self.options = options
        self.settings = settings
        self.misalignedWritesDropped = dropsMisalignedWrites
    }

    // MARK: Control point

    mutating func controlPoint(_ request: [UInt8], _ context: inout DeviceContext) {
        guard let opcodeByte = request.first else {
            context.violation("empty control point write")
            return
        }
        guard let opcode = SecureDFUOpcode(rawValue: opcodeByte) else {
            context.violation("unknown opcode 0x\(hexByte(opcodeByte))")
            respond(opcodeByte, .result(.opcodeNotSupported), &context)
            return
        }
        var parameters = ParameterReader(request.dropFirst(), opcode: opcode)
        switch opcode {
        case .protocolVersion, .getMTU, .ping, .getHardwareVersion, .getFirmwareVersion:
            // SDK 15+ answer these; over BLE only the 3-byte header is sent.
            respond(opcodeByte, .success, &context)
        case .createObject:
            let type = parameters.byte()
            let size = Int(parameters.uint32())
            parameters.finish(&context)
            prnCounter = prnTarget  // nrf_dfu_ble.c restarts the PRN count on every Create.
            create(type: type, size: size, &context)
        case .setPacketReceiptNotification:
            prnTarget = parameters.uint16()
            prnCounter = prnTarget
            parameters.finish(&context)
            respond(opcodeByte, .success, &context)
        case .calculateChecksum:
            switch currentObject {
            case .command:
                respond(
                    opcodeByte, .success, &context, payload: offsetAndCRC(settings.commandOffset, settings.commandCRC))
            case .data:
                respond(
                    opcodeByte, .success, &context,
                    payload: offsetAndCRC(settings.firmwareOffset, settings.firmwareCRC))
            case .invalid:
                respond(opcodeByte, .result(.invalidObject), &context)
            }
        case .execute:
            switch currentObject {
            case .command: executeCommand(&context)
            case .data: executeData(&context)
            case .invalid: respond(opcodeByte, .result(.invalidObject), &context)
            }
        case .selectObject:
            let type = parameters.byte()
            parameters.finish(&context)
            select(type: type, &context)
        case .writeObject:
            context.violation(
                "write object (0x08) is a serial-only request; BLE sends data on the packet characteristic")
            respond(opcodeByte, .result(.opcodeNotSupported), &context)
        case .abort:
            respond(opcodeByte, .success, &context)
            context.note("abort: resetting")
            context.reset(.terminatedByDevice, boot: .applicationIfValid)
        case .response:
            context.violation("response opcode 0x60 written by the client")
            respond(opcodeByte, .result(.opcodeNotSupported), &context)
        }
    }

    private mutating func select(type: UInt8, _ context: inout DeviceContext) {
        let op = SecureDFUOpcode.selectObject.rawValue
        switch SecureObjectType(rawValue: type) {
        case .command:
            currentObject = .command
            respond(
                op, .success, &context,
                payload: uint32(options.commandObjectMaximumSize)
                    + offsetAndCRC(settings.commandOffset, settings.commandCRC))
        case .data:
            currentObject = .data
            respond(
                op, .success, &context,
                payload: uint32(options.dataObjectMaximumSize)
                    + offsetAndCRC(settings.firmwareOffset, settings.firmwareCRC))
        case nil:
            currentObject = .invalid
            context.violation("select of unknown object type 0x\(hexByte(type))")
            respond(op, .result(.invalidObject), &context)
        }
    }

    private mutating func create(type: UInt8, size: Int, _ context: inout DeviceContext) {
        let op = SecureDFUOpcode.createObject.rawValue
        switch SecureObjectType(rawValue: type) {
        case .command:
            currentObject = .command
            if size == 0 {
                context.violation("create command object of size 0")
                respond(op, .result(.invalidParameter), &context)
            } else if size > options.commandObjectMaximumSize {
                context.violation("create command object of \(size) bytes, maximum \(options.commandObjectMaximumSize)")
                respond(op, .result(.insufficientResources), &context)
            } else {
                settings.resetProgress()
                settings.commandSize = size
                respond(op, .success, &context)
            }
        case .data:
            currentObject = .data
            createData(size: size, &context)
        case nil:
            currentObject = .invalid
            context.violation("create of unknown object type 0x\(hexByte(type))")
            respond(op, .result(.invalidObject), &context)
        }
    }

    private mutating func createData(size: Int, _ context: inout DeviceContext) {
        let op = SecureDFUOpcode.createObject.rawValue
        guard let validInit = settings.validInit else {
            context.violation("create data object without an executed init packet")
            respond(op, .result(.operationNotPermitted), &context)
            return
        }
        let end = settings.lastExecutedOffset + size
        if size == 0 {
            context.violation("create data object of size 0")
            respond(op, .result(.invalidParameter), &context)
        } else if size % context.flash.timing.pageSize != 0 && end != validInit.firmwareSize {
            context.violation("data object of \(size) bytes is not page aligned and not the last one")
            respond(op, .result(.invalidParameter), &context)
        } else if size > options.dataObjectMaximumSize {
            context.violation("data object of \(size) bytes, maximum \(options.dataObjectMaximumSize)")
            respond(op, .result(.insufficientResources), &context)
        } else if end > validInit.firmwareSize {
            context.violation("data object would end at \(end), image is \(validInit.firmwareSize) bytes")
            respond(op, .result(.operationNotPermitted), &context)
        } else {
            settings.dataObjectSize = size
            settings.rewindToLastExecuted()
            let erased = context.flash.erase(pages: context.flash.pages(for: size), at: context.now)
            context.note("erasing \(context.flash.pages(for: size)) page(s) until \(erased)")
            respond(op, .success, &context, at: options.createWaitsForErase ? erased : nil)
        }
    }

    private mutating func executeCommand(_ context: inout DeviceContext) {
        let op = SecureDFUOpcode.execute.rawValue
        guard settings.commandOffset == settings.commandSize else {
            context.violation(
                "execute of command object with \(settings.commandOffset) of \(settings.commandSize) bytes")
            respond(op, .result(.operationNotPermitted), &context)
            return
        }
        if settings.validInit != nil {
            respond(op, .success, &context)
            return
        }
        let validator = InitValidator(
            options: options,
            softDeviceFWID: settings.softDeviceFWID,
            applicationVersion: settings.applicationVersion,
            bootloaderVersion: settings.bootloaderVersion
        )
        switch validator.validate(settings.command) {
        case .success(let validated):
            settings.validInit = validated
            context.note("init packet accepted: \(validated.firmwareType), \(validated.firmwareSize) bytes")
            respond(op, .success, &context)
        case .failure(let failure):
            context.note("init packet rejected: \(failure.reason)")
            if failure.resetsProgress { settings.resetProgress() }
            respond(op, failure.outcome, &context)
        }
    }

    private mutating func executeData(_ context: inout DeviceContext) {
        let op = SecureDFUOpcode.execute.rawValue
        guard let validInit = settings.validInit else {
            // The SDK would post-validate against a missing init command here; answer as for a data write.
            context.violation("execute of a data object without an executed init packet")
            respond(op, .result(.operationNotPermitted), &context)
            return
        }
        let received = settings.firmwareOffset - settings.lastExecutedOffset
        guard received == settings.dataObjectSize else {
            context.violation("execute of data object with \(received) of \(settings.dataObjectSize) bytes")
            respond(op, .result(.operationNotPermitted), &context)
            return
        }
        settings.dataObjectSize = 0
        settings.lastExecutedOffset = settings.firmwareOffset
        settings.lastExecutedCRC = settings.firmwareCRC
        // The SDK reschedules Execute until fstorage is idle: the response waits for queued writes.
        let flashDone = context.flash.idle(at: context.now)
        guard settings.firmwareOffset == validInit.firmwareSize else {
            respond(op, .success, &context, at: flashDone)
            return
        }
        let outcome: SecureOutcome
        if let failure = validInit.checkFirmware(settings.firmware) {
            context.note("post-validation failed: \(failure.reason)")
            outcome = failure.outcome
        } else {
            activate(validInit, &context)
            outcome = .success
        }
        respond(op, outcome, &context, at: flashDone)
        settings.resetProgress()
        // Settings write (one page erase and the page) before the reset that starts the new image.
        _ = context.flash.erase(pages: 1, at: flashDone)
        let settingsWritten = context.flash.write(bytes: context.flash.timing.pageSize, at: flashDone)
        let boot: BootRequest
        switch (outcome, validInit.firmwareType) {
        case (.success, .application): boot = .applicationIfValid
        case (.success, _): boot = .bootloader(viaButtonless: false)
        case (_, _): boot = .applicationIfValid
        }
        context.reset(.terminatedByDevice, boot: boot, at: settingsWritten)
    }

    private mutating func activate(_ validInit: ValidatedInit, _ context: inout DeviceContext) {
        let image = settings.firmware
        let command = validInit.packet.command
        let countsVersion = !(options.isDebugBuild && command.isDebug == true)
        switch validInit.firmwareType {
        case .application, .externalApplication:
            context.storage.images[.application] = image
            context.storage.activated[.application] = image
            if countsVersion { settings.applicationVersion = command.fwVersion ?? 0 }
        case .softDevice:
            context.storage.images[.softDevice] = image
            context.storage.activated[.softDevice] = image
        case .bootloader:
            context.storage.images[.bootloader] = image
            context.storage.activated[.bootloader] = image
            if countsVersion { settings.bootloaderVersion = command.fwVersion ?? 0 }
        case .softDeviceBootloader:
            let sdSize = min(Int(command.sdSize ?? 0), image.count)
            context.storage.images[.softDevice] = Array(image[..<sdSize])
            context.storage.activated[.softDevice] = Array(image[..<sdSize])
            context.storage.images[.bootloader] = Array(image[sdSize...])
            context.storage.activated[.bootloader] = Array(image[sdSize...])
            if countsVersion { settings.bootloaderVersion = command.fwVersion ?? 0 }
        }
        context.note("activated \(validInit.firmwareType) image of \(image.count) bytes")
    }

    // MARK: Packet

    mutating func packet(_ bytes: [UInt8], _ context: inout DeviceContext) {
        heldBuffers.removeAll { $0 <= context.now }
        let isDataWrite = currentObject == .data
        if isDataWrite && heldBuffers.count >= options.effectivePacketBufferCount {
            // nrf_dfu_ble.c: "cannot allocate memory buffer!" — the write is lost without a trace.
            context.note("packet buffers exhausted while flash is busy: \(bytes.count) bytes lost")
            return
        }
        var outcome = SecureOutcome.success
        var payload: [UInt8]
        switch currentObject {
        case .command:
            if settings.commandOffset + bytes.count > settings.commandSize {
                context.violation(
                    "command write of \(bytes.count) bytes at \(settings.commandOffset) overflows \(settings.commandSize)"
                )
                outcome = .result(.invalidParameter)
            } else {
                settings.appendCommand(bytes)
            }
            payload = offsetAndCRC(settings.commandOffset, settings.commandCRC)
        case .data:
            (outcome, payload) = writeData(bytes, &context)
        case .invalid:
            context.violation("packet write while the selected object type is invalid")
            outcome = .result(.invalidObject)
            payload = []
        }
        prnCounter &-= 1
        if prnTarget == 0 || prnCounter != 0 { return }
        prnCounter = prnTarget
        respond(SecureDFUOpcode.calculateChecksum.rawValue, outcome, &context, payload: payload)
    }

    private mutating func writeData(
        _ bytes: [UInt8],
        _ context: inout DeviceContext
    ) -> (SecureOutcome, [UInt8]) {
        guard settings.validInit != nil else {
            context.violation("data written without an executed init packet")
            return (.result(.operationNotPermitted), [])
        }
        let objectOffset = settings.firmwareOffset - settings.lastExecutedOffset
        if objectOffset + bytes.count > settings.dataObjectSize {
            context.violation(
                "data write of \(bytes.count) bytes at object offset \(objectOffset) overflows \(settings.dataObjectSize)"
            )
            return (.result(.invalidParameter), [])
        }
        if bytes.count % 4 != 0 && misalignedWritesDropped {
            // fstorage refuses the write; the handler returns early with the response fields still zero.
            context.violation("data write of \(bytes.count) bytes is not a multiple of 4; silently dropped")
            return (.success, offsetAndCRC(0, 0))
        }
        settings.appendFirmware(bytes)
        heldBuffers.append(context.flash.write(bytes: bytes.count, at: context.now))
        return (.success, offsetAndCRC(settings.firmwareOffset, settings.firmwareCRC))
    }

    // MARK: Encoding

    private func respond(
        _ opcode: UInt8,
        _ outcome: SecureOutcome,
        _ context: inout DeviceContext,
        payload: [UInt8] = [],
        at time: Duration? = nil
    ) {
        let body = outcome == .success ? payload : []
        context.notify(
            .secureControlPoint, [SecureDFUOpcode.response.rawValue, opcode] + outcome.bytes + body, at: time)
    }
}

private func uint32(_ value: Int) -> [UInt8] {
    let word = UInt32(truncatingIfNeeded: value)
    return (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
}

private func offsetAndCRC(_ offset: Int, _ crc: UInt32) -> [UInt8] {
    uint32(offset) + uint32(Int(crc))
}

/// Reads little-endian request parameters; missing bytes read as zero, as the SDK reads past a short write.
private struct ParameterReader {
    private var bytes: ArraySlice<UInt8>
    private let opcode: SecureDFUOpcode
    private var wasShort = false

    init(_ bytes: ArraySlice<UInt8>, opcode: SecureDFUOpcode) {
        self.bytes = bytes
        self.opcode = opcode
    }

    mutating func byte() -> UInt8 {
        guard let value = bytes.first else {
            wasShort = true
            return 0
        }
        bytes = bytes.dropFirst()
        return value
    }

    mutating func uint16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    mutating func uint32() -> UInt32 {
        UInt32(uint16()) | UInt32(uint16()) << 16
    }

    func finish(_ context: inout DeviceContext) {
        if wasShort { context.violation("\(opcode) request too short; missing bytes read as zero") }
    }
}

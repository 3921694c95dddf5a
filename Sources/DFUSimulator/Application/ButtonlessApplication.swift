/// The application's buttonless DFU service (SDK 11 `ble_dfu.c` app side for legacy; SDK 14–17
/// `ble_dfu_unbonded.c` / `ble_dfu_bonded.c` for Secure).
struct ButtonlessApplication {
    let service: ButtonlessService
    /// A Set Advertisement Name request is being stored in flash until this time.
    private var nameWriteDoneAt: Duration?

    init(service: ButtonlessService) {
        self.service = service
    }

    /// The roles the application's GATT database holds.
    var roles: Set<CharacteristicRole> {
        switch service {
        case .none: []
        case .legacy: [.legacyControlPoint, .legacyVersion]
        case .secureWithoutBonds: [.buttonlessWithoutBonds]
        case .secureWithBonds: [.buttonlessWithBonds]
        }
    }

    /// Version characteristic value of the application-side legacy service: 0.1.
    static let legacyVersion: [UInt8] = [0x01, 0x00]

    private static let responseCode: UInt8 = 0x20
    private static let enterBootloader: UInt8 = 0x01
    private static let setAdvertisementName: UInt8 = 0x02
    private static let maximumNameLength = 20

    mutating func write(_ role: CharacteristicRole, _ request: [UInt8], _ context: inout DeviceContext) {
        switch role {
        case .legacyControlPoint: legacyWrite(request, &context)
        case .buttonlessWithoutBonds, .buttonlessWithBonds: secureWrite(role, request, &context)
        case .secureControlPoint, .securePacket, .legacyPacket, .legacyVersion:
            preconditionFailure("\(role) write routed to the application")
        }
    }

    /// SDK 11 application: Start DFU (≥ 2 bytes, type ignored) jumps without answering; any other request
    /// is answered `10 01 03`.
    private func legacyWrite(_ request: [UInt8], _ context: inout DeviceContext) {
        guard request.first == LegacyDFUOpcode.startDFU.rawValue, request.count >= 2 else {
            context.violation("application legacy DFU service got \(hexDump(request)); only 01 xx jumps")
            context.notify(.legacyControlPoint, [0x10, 0x01, LegacyDFUStatus.notSupported.rawValue])
            return
        }
        context.note("legacy buttonless jump: the application resets without closing the link")
        context.reset(.supervisionTimeout, boot: .bootloader(viaButtonless: true))
    }

    private mutating func secureWrite(_ role: CharacteristicRole, _ request: [UInt8], _ context: inout DeviceContext) {
        guard let opcode = request.first else {
            context.violation("empty buttonless write")
            return
        }
        if let done = nameWriteDoneAt, done > context.now {
            context.violation("buttonless request while the previous one is still pending")
            context.notify(role, [Self.responseCode, opcode, 0x06])
            return
        }
        switch (opcode, service) {
        case (Self.enterBootloader, .secureWithBonds(isPeerBonded: false)):
            context.violation("enter bootloader on the bonded service without a bond")
            context.notify(role, [Self.responseCode, opcode, 0x07])
        case (Self.enterBootloader, _):
            // The indication goes out first; once the central confirms it the application resets.
            context.notify(role, [Self.responseCode, opcode, 0x01])
            context.reset(.terminatedByDevice, boot: .bootloader(viaButtonless: true))
        case (Self.setAdvertisementName, .secureWithoutBonds):
            let length = request.count >= 2 ? Int(request[1]) : 0
            let name = request.dropFirst(2)
            guard (1...Self.maximumNameLength).contains(length), name.count == length else {
                context.violation("advertisement name of \(length) bytes with \(name.count) given")
                context.notify(role, [Self.responseCode, opcode, 0x05])
                return
            }
            // Answered once the name is stored in the bootloader settings page (one page erase and write).
            _ = context.flash.erase(pages: 1, at: context.now)
            let stored = context.flash.write(bytes: context.flash.timing.pageSize, at: context.now)
            nameWriteDoneAt = stored
            context.storage.bootloaderName = String(decoding: name, as: UTF8.self)
            context.notify(role, [Self.responseCode, opcode, 0x01], at: stored)
        case (_, _):
            context.violation("buttonless opcode 0x\(hexByte(opcode)) not supported here")
            context.notify(role, [Self.responseCode, opcode, 0x02])
        }
    }
}

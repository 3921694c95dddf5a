import DeviceLink
import Testing

@testable import DFUController

/// Reconnects after the link dropped (`recover` with the link down) and resumes a bootloader that holds and executed
/// `secureInit`, with PRN off, up to the Select (data) request; all at time zero.
private func secureReconnectLines() -> [Line] {
    [
        .disconnects,
        .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)), .does(.cancelTimer(.connection)),
        .does(.connect(ConnectionRequest(address: device))),
        arms(.connection, .seconds(15)),
        .connected(mtu: 23, [.secureControlPoint, .securePacket]),
        .does(.cancelTimer(.connection)),
        .does(.enableNotifications(.secureControlPoint)),
        writes(.secureControlPoint, "06 01"),  // selectObject(command)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 06 01 00 01 00 00 0A 00 00 00 " + le32(crc(secureInit, 10))),
        writes(.secureControlPoint, "04"),  // the whole init packet is there: execute it
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 04 01"),
        writes(.secureControlPoint, "02 00 00"),  // setPacketReceiptNotification(0)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 02 01"),
        writes(.secureControlPoint, "06 02"),  // selectObject(data)
        arms(.response, .seconds(1)),
    ]
}

/// Creates a 64-byte data object at `start` of `image`, sends it with PRN off (MTU 23, no preparation delay), and
/// asks for its checksum; the answer is the caller's.
private func sendObjectLines(_ image: [UInt8], from start: Int) -> [Line] {
    [
        writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 01 01"),
        sends(.securePacket, image[start..<(start + 64)], size: 20),
        writes(.secureControlPoint, "03"),  // calculateChecksum
        arms(.response, .milliseconds(1_200)),  // 4 packets x 50 ms + 1 s
    ]
}

/// Select (data) answered: maximum object size 64, `offset` bytes held with `crc`.
private func selectAnswer(offset: Int, crc: UInt32) -> Line {
    notifies(.secureControlPoint, "60 06 01 40 00 00 00 " + le32(offset) + " " + le32(crc))
}

/// Nothing a misbehaving device repeats keeps an update going without progress: every loop spends
/// ``DFUConfiguration/attemptsPerObject`` or ``DFUConfiguration/maximumReconnects``, and an offset below what the
/// target confirmed on the connection is a protocol violation.
@Suite struct SecureProgressBoundTests {
    let image = testImage(128)

    private func controller(reconnects: Int = 3) -> DFUController {
        secureController(image: image, prn: 0) {
            $0.objectPreparationDelay = .zero
            $0.maximumReconnects = reconnects
        }
    }

    /// Object 0 sent, confirmed and executed; object 1 created (the connection drops there).
    private var firstObjectExecuted: [Line] {
        [
            selectAnswer(offset: 0, crc: 0)
        ] + sendObjectLines(image, from: 0) + [
            notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
            writes(.secureControlPoint, "04"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 04 01"),
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64) for object 1
            arms(.response, .seconds(1)),
        ]
    }

    @Test("an Execute that never takes effect (Select falls back after every reconnect) spends --retries")
    func executeNeverTakesEffect() {
        // Each connection executes object 0 again and drops the link: before, any executed object reset the
        // reconnect count, and the update looped forever. Now only execution past offset 64 counts.
        var controller = controller(reconnects: 2)
        let again = secureReconnectLines() + firstObjectExecuted
        run(
            &controller,
            secureInitLines(prn: "02 00 00") + firstObjectExecuted + again + again + [
                .disconnects,
                .does(.disconnect),
                .does(.fail(.reconnectsExhausted(attempts: 2))),
            ], ignoringProgressAndLogs: true)
        #expect(controller.isFinished)
    }

    @Test("the give-up names the offset the target executed up to")
    func giveUpIsLogged() {
        var controller = controller(reconnects: 0)
        run(&controller, secureInitLines(prn: "02 00 00") + firstObjectExecuted, ignoringProgressAndLogs: true)
        let actions = controller.transportDisconnected(at: .zero)
        #expect(actions.contains(.log("the target executed data objects up to offset 64 and no further")))
        #expect(actions.last == .fail(.reconnectsExhausted(attempts: 0)))
    }

    @Test("progress past the best offset of earlier connections starts the reconnect count again")
    func progressResetsTheCount() {
        // Three objects; --retries 1. The first connection executes object 0 and drops (the one reconnect), the
        // second executes object 1: past offset 64, so the drop after it may reconnect again.
        let image = testImage(192)
        var controller = secureController(image: image, prn: 0) {
            $0.objectPreparationDelay = .zero
            $0.maximumReconnects = 1
        }
        run(
            &controller,
            secureInitLines(prn: "02 00 00") + firstObjectExecuted + secureReconnectLines() + [
                selectAnswer(offset: 64, crc: crc(image, 64)),
                writes(.secureControlPoint, "04"),  // execute object 0, may be pending
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 08"),  // already executed
            ] + sendObjectLines(image, from: 64) + [
                notifies(.secureControlPoint, "60 03 01 80 00 00 00 " + le32(crc(image, 128))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 01"),
                writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64) for object 2
                arms(.response, .seconds(1)),
            ] + Array(secureReconnectLines().prefix(6)), ignoringProgressAndLogs: true)
        #expect(!controller.isFinished)
    }

    @Test("a checksum below the end of an executed object is a protocol violation, not a resend")
    func checksumBelowExecuted() {
        var controller = controller()
        let violation = DFUError.protocolViolation(.offsetBelowConfirmed(.dataObject(1), reported: 0, confirmed: 64))
        run(
            &controller,
            secureInitLines(prn: "02 00 00") + firstObjectExecuted + [
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[64..<128], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_200)),
                notifies(.secureControlPoint, "60 03 01 00 00 00 00 00 00 00 00"),  // offset 0: object 0 is gone
                .does(.disconnect),
                .does(.fail(violation)),
            ], ignoringProgressAndLogs: true)
        #expect(
            "\(violation)"
                == "target violated the protocol: data object 1 reported offset 0, below the 64 bytes it had confirmed")
    }

    @Test("a checksum below a receipt the target confirmed in the same object is a protocol violation")
    func checksumBelowReceipt() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        run(
            &controller,
            secureInitLines() + [
                selectAnswer(offset: 0, crc: 0),
                writes(.secureControlPoint, "01 02 40 00 00 00"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[0..<60], size: 20),
                arms(.response, .milliseconds(1_150)),
                notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),  // receipt: 60 bytes
                sends(.securePacket, image[60..<64], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_050)),
                notifies(.secureControlPoint, "60 03 01 14 00 00 00 " + le32(crc(image, 20))),  // 20 < 60
                .does(.disconnect),
                .does(
                    .fail(
                        .protocolViolation(.offsetBelowConfirmed(.dataObject(0), reported: 20, confirmed: 60)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a checksum that repeats the object's start (a receipt that never advances) spends the object's attempts")
    func checksumNeverAdvances() {
        var controller = controller()
        let stuck = notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64)))
        let resend: [Line] = [
            writes(.secureControlPoint, "02 00 00"),  // Set PRN restarts the target's count; continue from 64
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 02 01"),
            sends(.securePacket, image[64..<128], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_200)),
        ]
        let mismatch = CRCMismatch(
            objectType: .data, objectIndex: 1, attempts: 3, expectedOffset: 128, expectedCRC: crc(image, 128),
            reportedOffset: 64, reportedCRC: crc(image, 64))
        run(
            &controller,
            secureInitLines(prn: "02 00 00") + firstObjectExecuted + [
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[64..<128], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_200)),
                stuck,
            ] + resend + [stuck] + resend + [
                stuck,
                .does(.disconnect),
                .does(.fail(.crcMismatchPersisted(mismatch))),
            ], ignoringProgressAndLogs: true)
        let message = "\(DFUError.crcMismatchPersisted(mismatch))"
        #expect(message.hasPrefix("data (0x02) object 1 failed its checksum 3 times"))
    }

    @Test("a receipt that never advances past the object's start spends the object's attempts")
    func receiptNeverAdvances() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        let run60: [Line] = [
            sends(.securePacket, image[0..<60], size: 20),
            arms(.response, .milliseconds(1_150)),
            notifies(.secureControlPoint, "60 03 01 00 00 00 00 00 00 00 00"),  // nothing held
        ]
        let restore: [Line] = [
            writes(.secureControlPoint, "02 03 00"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 02 01"),
        ]
        let mismatch = CRCMismatch(
            objectType: .data, objectIndex: 0, attempts: 3, expectedOffset: 60, expectedCRC: crc(image, 60),
            reportedOffset: 0, reportedCRC: 0)
        run(
            &controller,
            secureInitLines() + [
                selectAnswer(offset: 0, crc: 0),
                writes(.secureControlPoint, "01 02 40 00 00 00"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 01 01"),
            ] + run60 + restore + run60 + restore + run60 + [
                .does(.disconnect),
                .does(.fail(.crcMismatchPersisted(mismatch))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a Create that succeeds while Select reports nothing held on every connection spends --retries")
    func objectNeverHeld() {
        // The target answers Create, then drops the link before the object's checksum; each new connection's Select
        // reports offset 0 again. No object executes, so no connection counts as progress.
        var controller = controller(reconnects: 1)
        let created: [Line] = [
            selectAnswer(offset: 0, crc: 0),
            writes(.secureControlPoint, "01 02 40 00 00 00"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[0..<64], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_200)),
        ]
        run(
            &controller,
            secureInitLines(prn: "02 00 00") + created + secureReconnectLines() + created + [
                .disconnects,
                .does(.disconnect),
                .does(.fail(.reconnectsExhausted(attempts: 1))),
            ], ignoringProgressAndLogs: true)
    }
}

@Suite struct LegacyProgressBoundTests {
    let image = testImage(48)

    @Test("receipts that never advance end in a received-size check and a restart, bounded by --retries")
    func receiptNeverAdvances() {
        var controller = legacyController(image: image) { $0.maximumReconnects = 0 }
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 00 00 00 00"),  // 0 bytes: the count the run started from
                .passes(.milliseconds(1_100)),
                .fires(.response),
                writes(.legacyControlPoint, "07"),
                arms(.response, .milliseconds(21_100)),
                notifies(.legacyControlPoint, "10 07 01 00 00 00 00"),
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(.timedOut(.legacyPacketReceipt, limit: .seconds(20)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a received size below a receipt the target confirmed is a protocol violation")
    func sizeBelowReceipt() {
        var controller = legacyController(image: image)
        let violation = DFUError.protocolViolation(
            .offsetBelowConfirmed(.legacyReceivedImageSize, reported: 20, confirmed: 40))
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 28 00 00 00"),  // 40 bytes confirmed
                sends(.legacyPacket, image[40..<48], size: 20),
                arms(.response, .milliseconds(20_016)),
                notifies(.legacyControlPoint, "11 14 00 00 00"),  // 20
                writes(.legacyControlPoint, "07"),
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 07 01 14 00 00 00"),
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(violation)),
            ], ignoringProgressAndLogs: true)
        #expect(
            "\(violation)"
                == "target violated the protocol: report received image size reported offset 20, below the 40 bytes "
                + "it had confirmed")
    }

    @Test("a received size beyond the bytes sent is a protocol violation")
    func sizeBeyondSent() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 3C 00 00 00"),  // 60: more than was sent
                writes(.legacyControlPoint, "07"),
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 07 01 3C 00 00 00"),
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(.protocolViolation(.offsetBeyondSent(reported: 60, sent: 40)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a CRC error at every Validate restarts the part until --retries is spent, then fails with it")
    func validateLoop() {
        var controller = legacyController(image: image) { $0.maximumReconnects = 1 }
        let validating: [Line] = [
            notifies(.legacyControlPoint, "11 28 00 00 00"),
            sends(.legacyPacket, image[40..<48], size: 20),
            arms(.response, .milliseconds(20_016)),
            notifies(.legacyControlPoint, "10 03 01"),
            writes(.legacyControlPoint, "04"),
            arms(.response, .seconds(20)),
            notifies(.legacyControlPoint, "10 04 05"),  // crcError
        ]
        run(
            &controller,
            legacyReceivingLines(image) + validating + restartLines(at: .zero, resetting: true)
                + Array(legacyReceivingLines(image).dropFirst(3)) + validating + [
                    writes(.legacyControlPoint, "06"),
                    .does(.disconnect),
                    .does(.fail(.rejected(.legacy(.validateFirmware, .crcError)))),
                ], ignoringProgressAndLogs: true)
    }
}

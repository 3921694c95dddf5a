import DeviceLink
import Testing

@testable import DFUController

/// Lines up to the first data object's Create answer with the preparation delay off, 64-byte objects.
func firstObjectLines(_ image: [UInt8]) -> [Line] {
    secureInitLines() + [
        notifies(.secureControlPoint, "60 06 01 40 00 00 00 00 00 00 00 00 00 00 00"),
        writes(.secureControlPoint, "01 02 40 00 00 00"),
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 01 01"),
        sends(.securePacket, image[0..<60], size: 20),
        arms(.response, .milliseconds(3 * 50 + 1000)),  // the receipt is due after 3 packets x 50 ms + 1 s
        notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),
        sends(.securePacket, image[60..<64], size: 20),
        writes(.secureControlPoint, "03"),
        arms(.response, .milliseconds(1_050)),
    ]
}

@Suite struct SecureErrorTests {
    let image = testImage(160)

    @Test("recreates an object after a checksum mismatch and continues when the retry matches")
    func retriesAfterMismatch() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        run(
            &controller,
            firstObjectLines(image) + [
                notifies(.secureControlPoint, "60 03 01 40 00 00 00 00 00 00 00"),  // wrong CRC
                writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data) again
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[0..<60], size: 20),
                arms(.response, .milliseconds(1_150)),
                notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),
                sends(.securePacket, image[60..<64], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_050)),
                notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("fails with crcMismatchPersisted after the configured attempts")
    func mismatchBeyondRetries() {
        var controller = secureController(image: image) {
            $0.objectPreparationDelay = .zero
            $0.attemptsPerObject = 1
        }
        let mismatch = CRCMismatch(
            objectType: .data, objectIndex: 0, attempts: 1, expectedOffset: 64, expectedCRC: crc(image, 64),
            reportedOffset: 64, reportedCRC: 0)
        run(
            &controller,
            firstObjectLines(image) + [
                notifies(.secureControlPoint, "60 03 01 40 00 00 00 00 00 00 00"),
                .does(.disconnect),
                .does(.fail(.crcMismatchPersisted(mismatch))),
            ], ignoringProgressAndLogs: true)
        #expect(
            DFUError.crcMismatchPersisted(mismatch).description.hasPrefix(
                "data (0x02) object 0 failed its checksum 1 times"))
    }

    @Test("a receipt for fewer bytes with a matching CRC continues from there after Set PRN restarts the count")
    func lostTailContinues() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = Array(firstObjectLines(image).dropLast(4))
        lines += [
            notifies(.secureControlPoint, "60 03 01 28 00 00 00 " + le32(crc(image, 40))),  // the last 20 bytes lost
            writes(.secureControlPoint, "02 03 00"),  // setPacketReceiptNotification(3): the target counts afresh
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 02 01"),
            sends(.securePacket, image[40..<64], size: 20),  // 2 writes end the object: the checksum follows
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_100)),
            notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
            writes(.secureControlPoint, "04"),
            arms(.response, .seconds(1)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("a receipt whose CRC is wrong (a packet lost mid-run, or corrupted) creates the object again")
    func lostMiddleRecreates() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = Array(firstObjectLines(image).dropLast(4))
        lines += [
            // The second packet was lost: the target appended the third at offset 20.
            notifies(
                .secureControlPoint,
                "60 03 01 28 00 00 00 " + le32(crc(Array(image[0..<20]) + Array(image[40..<60]), 40))),
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64): rewinds the target
            arms(.response, .seconds(1)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("a late receipt asks for the checksum, and a receipt that then comes is not taken twice")
    func lateReceiptAsksChecksum() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = Array(firstObjectLines(image).dropLast(4))
        lines += [
            .passes(.milliseconds(1_150)),
            .fires(.response),  // no receipt within 3 x 50 ms + 1 s
            writes(.secureControlPoint, "03"),  // calculateChecksum
            arms(.response, .milliseconds(2_150)),
            notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),  // the late receipt
            sends(.securePacket, image[60..<64], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(2_200)),
            notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),  // the answer: stale
            notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
            writes(.secureControlPoint, "04"),
            arms(.response, .milliseconds(2_150)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("a late receipt that never comes: the checksum says where the target stands (here: all of it)")
    func lostReceiptNotification() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = Array(firstObjectLines(image).dropLast(4))
        lines += [
            .passes(.milliseconds(1_150)),
            .fires(.response),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(2_150)),
            notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),
            sends(.securePacket, image[60..<64], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(2_200)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test(
        "every error result code fails with its Nordic name",
        arguments: SecureResultCode.allCases.filter { $0 != .success && $0 != .extendedError })
    func resultCodes(code: SecureResultCode) {
        var controller = secureController(image: image)
        let error = DFUError.rejected(.secure(.selectObject, code, nil))
        run(
            &controller,
            Array(secureInitLines().prefix(10)) + [
                .notifies(.secureControlPoint, [0x60, 0x06, code.rawValue]),
                .does(.disconnect),
                .does(.fail(error)),
            ], ignoringProgressAndLogs: true)
        #expect(error.description == "target rejected selectObject (0x06) with \(code)")
        #expect(code.description.hasSuffix("(\(hexByte(code.rawValue)))"))
    }

    @Test("decodes extended errors after 0x0B", arguments: SecureExtendedError.allCases)
    func extendedErrors(extended: SecureExtendedError) {
        var controller = secureController(image: image)
        run(
            &controller,
            Array(secureInitLines().prefix(23)) + [  // up to Execute (command) and its timer
                .notifies(.secureControlPoint, [0x60, 0x04, 0x0B, extended.rawValue]),
                .does(.disconnect),
                .does(.fail(.rejected(.secure(.execute, .extendedError, extended)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("names extended errors in messages")
    func extendedErrorMessage() {
        let error = DFUError.rejected(.secure(.execute, .extendedError, .firmwareVersionFailure))
        #expect(
            error.description
                == "target rejected execute (0x04) with extendedError (0x0B): firmwareVersionFailure (0x05)")
    }

    @Test(
        "malformed notifications are protocol violations",
        arguments: [
            ("60 06", ProtocolViolation.tooShort(expectedLength: 3, received: hex("60 06"))),
            ("60 03 01", .unexpectedMessage(expected: hex("60 06"), received: hex("60 03 01"))),
            ("10 06 01", .unexpectedMessage(expected: hex("60 06"), received: hex("10 06 01"))),
            ("60 06 01 00 01", .tooShort(expectedLength: 15, received: hex("60 06 01 00 01"))),
            ("60 06 09", .unknownResultCode(received: hex("60 06 09"))),
            ("60 06 0B", .tooShort(expectedLength: 4, received: hex("60 06 0B"))),
            ("60 06 0B 0E", .unknownExtendedError(received: hex("60 06 0B 0E"))),
        ])
    func malformed(bytes: String, violation: ProtocolViolation) {
        var controller = secureController(image: image)
        run(
            &controller,
            Array(secureInitLines().prefix(10)) + [
                notifies(.secureControlPoint, bytes),
                .does(.disconnect),
                .does(.fail(.protocolViolation(violation))),
                // Terminal failed state: everything after is ignored.
                notifies(.secureControlPoint, "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00"),
                .acknowledged,
                .fires(.response),
                .cancels,
                .disconnects,
            ], ignoringProgressAndLogs: true)
        #expect(controller.isFinished)
    }

    @Test("an unanswered request is asked again 3 times a second apart, then waited for until --timeout")
    func responseTimeout() {
        var controller = secureController(image: image) { $0.maximumReconnects = 1 }
        let reconnect: [Line] = [
            .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)), .does(.cancelTimer(.connection)),
            .does(.disconnect),
        ]
        // Select asked at `start`, then again at +1, +2 and +3 s; the answer is overdue for good at +20 s.
        let silence = { (start: Duration) -> [Line] in
            (1...3).flatMap { second -> [Line] in
                [
                    .passes(.seconds(1)), .fires(.response),
                    writes(.secureControlPoint, "06 01"), arms(.response, start + .seconds(second + 1)),
                ]
            } + [.passes(.seconds(1)), .fires(.response), arms(.response, start + .seconds(20))]
        }
        run(
            &controller,
            Array(secureInitLines().prefix(8)) + silence(.zero) + [
                .passes(.seconds(16)),
                .fires(.response),
            ] + reconnect + [
                arms(.disconnection, .seconds(25)),
                .disconnects,
                .does(.cancelTimer(.disconnection)),
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(35)),
                .connected(mtu: 23, [.secureControlPoint, .securePacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.secureControlPoint)),
                writes(.secureControlPoint, "06 01"),  // selectObject(command): where does the target stand?
                arms(.response, .seconds(21)),
            ] + silence(.seconds(20)) + [
                .passes(.seconds(16)),
                .fires(.response),
                .does(.disconnect),
                .does(.fail(.timedOut(.secureResponse(.selectObject), limit: .seconds(20)))),
            ], ignoringProgressAndLogs: true)
        #expect(
            DFUError.timedOut(.secureResponse(.selectObject), limit: .seconds(20)).description
                == "timed out after 20.0 seconds waiting for the response to selectObject (0x06)")
    }

    @Test("a lost answer to Create costs a second: Create is asked again and the answer to it goes on")
    func lostCreateAnswer() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        // Up to the data object's Create and its timer.
        var lines = Array(firstObjectLines(image).prefix(secureInitLines().count + 3))
        lines += [
            .passes(.seconds(1)),
            .fires(.response),  // "60 01 01" was lost
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64) again: same object, empty
            arms(.response, .seconds(2)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[0..<60], size: 20),
            arms(.response, .milliseconds(2_150)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("a late answer to a request asked again is ignored once the machine has moved on")
    func lateAnswerIgnored() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = firstObjectLines(image)
        lines += [
            notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
            writes(.secureControlPoint, "04"),  // execute object 0
            arms(.response, .seconds(1)),
            .passes(.seconds(1)),
            .fires(.response),
            writes(.secureControlPoint, "04"),  // asked again
            arms(.response, .seconds(2)),
            notifies(.secureControlPoint, "60 04 01"),  // the first answer, late
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64) for object 1
            arms(.response, .seconds(2)),
            notifies(.secureControlPoint, "60 04 08"),  // the repeated Execute's answer: late, not unsolicited
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[64..<124], size: 20),
            arms(.response, .milliseconds(2_150)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("a repeated Execute answered 0x08 means the first one executed the object")
    func repeatedExecuteNotPermitted() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        run(
            &controller,
            firstObjectLines(image) + [
                notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
                .passes(.seconds(1)),
                .fires(.response),  // "60 04 01" was lost
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(2)),
                notifies(.secureControlPoint, "60 04 08"),
                writes(.secureControlPoint, "01 02 40 00 00 00"),  // object 1: the device executed object 0
                arms(.response, .seconds(2)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a connection timer firing fails the connection")
    func connectionTimeout() {
        var controller = secureController(image: image)
        run(
            &controller,
            Array(secureInitLines().prefix(3)) + [
                .fires(.connection),
                .does(.disconnect),
                .does(.fail(.timedOut(.connection, limit: .seconds(15)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("cancel sends Abort and finishes cancelled once it is written")
    func cancelSendsAbort() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        run(
            &controller,
            firstObjectLines(image) + [
                .cancels,
                .does(.cancelTimer(.objectPreparation)),
                writes(.secureControlPoint, "0C"),  // abort
                arms(.response, .seconds(20)),
                .acknowledged,
                .does(.disconnect),
                .does(.fail(.cancelled)),
                notifies(.secureControlPoint, "60 0C 01"),  // ignored
            ], ignoringProgressAndLogs: true)
    }

    @Test("the transcript runner reports a divergence")
    func runnerReports() {
        var controller = secureController(image: image)
        withKnownIssue {
            run(&controller, [.start, .does(.disconnect)], ignoringProgressAndLogs: true)
        }
    }
}

import DeviceLink
import Testing

@testable import DFUController

/// Connects to a bootloader that already holds and executed `secureInit`, up to the Select (data) request.
func resumedInitLines() -> [Line] {
    [
        .start,
        .does(.connect(ConnectionRequest(address: device))),
        arms(.connection, .seconds(15)),
        .connected(mtu: 23, [.secureControlPoint, .securePacket]),
        .does(.cancelTimer(.connection)),
        .does(.enableNotifications(.secureControlPoint)),
        writes(.secureControlPoint, "06 01"),  // selectObject(command)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 06 01 00 01 00 00 0A 00 00 00 " + le32(crc(secureInit, 10))),
        writes(.secureControlPoint, "04"),  // execute: the whole init packet is there
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 04 01"),
        writes(.secureControlPoint, "02 03 00"),  // setPacketReceiptNotification(3)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 02 01"),
        writes(.secureControlPoint, "06 02"),  // selectObject(data)
        arms(.response, .seconds(1)),
    ]
}

@Suite struct SecureResumeTests {
    let image = testImage(160)

    @Test("sends the rest of a data object whose offset is mid-object and whose CRC matches")
    func resumesMidObject() {
        var controller = secureController(image: image)
        run(
            &controller,
            resumedInitLines() + [
                notifies(.secureControlPoint, "60 06 01 40 00 00 00 64 00 00 00 " + le32(crc(image, 100))),
                sends(.securePacket, image[100..<128], size: 20),  // no Create: the object exists
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_100)),
                notifies(.secureControlPoint, "60 03 01 80 00 00 00 " + le32(crc(image, 128))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 01"),
                writes(.secureControlPoint, "01 02 20 00 00 00"),  // createObject(data, 32)
                arms(.response, .seconds(1)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("executes an object that ends at the reported offset and takes 0x08 as already executed")
    func resumesAtBoundary() {
        var controller = secureController(image: image)
        run(
            &controller,
            resumedInitLines() + [
                notifies(.secureControlPoint, "60 06 01 40 00 00 00 80 00 00 00 " + le32(crc(image, 128))),
                writes(.secureControlPoint, "04"),  // execute object 1, may be pending
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 08"),  // operationNotPermitted: SDK 15–17 already executed it
                writes(.secureControlPoint, "01 02 20 00 00 00"),  // createObject(data, 32)
                arms(.response, .seconds(1)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("recreates the object when the reported CRC does not match")
    func recreatesOnMismatch() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        run(
            &controller,
            resumedInitLines() + [
                notifies(.secureControlPoint, "60 06 01 40 00 00 00 64 00 00 00 DE AD BE EF"),
                writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64) for object 1
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[64..<124], size: 20),
                arms(.response, .milliseconds(1_150)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("executes the final object when the target holds the whole image")
    func resumesComplete() {
        var controller = secureController(image: image)
        run(
            &controller,
            resumedInitLines() + [
                notifies(.secureControlPoint, "60 06 01 40 00 00 00 A0 00 00 00 " + le32(crc(image, 160))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 01"),
                .does(.cancelTimer(.response)),
                .does(.disconnect),
                .does(
                    .finish(
                        DFUSummary(parts: [
                            PartConfirmation(
                                imageType: .application, dfuProtocol: .secure, bytesConfirmed: 160,
                                crc32: crc(image, 160),
                                evidence: .reportedChecksum(.selectObject, crc32: crc(image, 160)))
                        ]))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("sends the rest of a partly received init packet")
    func resumesInitPacket() {
        var controller = secureController(image: image)
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.secureControlPoint, .securePacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.secureControlPoint)),
                writes(.secureControlPoint, "06 01"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 06 01 00 01 00 00 04 00 00 00 " + le32(crc(secureInit, 4))),
                writes(.secureControlPoint, "02 00 00"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 02 01"),
                sends(.securePacket, secureInit[4...], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_050)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("starts over with Create when resume is off")
    func resumeDisabled() {
        var controller = secureController(image: image) { $0.isResumeEnabled = false }
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.secureControlPoint, .securePacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.secureControlPoint)),
                writes(.secureControlPoint, "06 01"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 06 01 00 01 00 00 0A 00 00 00 " + le32(crc(secureInit, 10))),
                writes(.secureControlPoint, "01 01 0A 00 00 00"),  // createObject(command) resets the target
                arms(.response, .seconds(1)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("reconnects after link loss mid-object and resumes from the Select answers")
    func reconnectsAndResumes() {
        var controller = secureController(image: image) { $0.objectPreparationDelay = .zero }
        var lines = secureInitLines()
        lines += [
            notifies(.secureControlPoint, "60 06 01 40 00 00 00 00 00 00 00 00 00 00 00"),
            writes(.secureControlPoint, "01 02 40 00 00 00"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[0..<60], size: 20),
            arms(.response, .milliseconds(1_150)),
            .passes(.seconds(1)),
            .disconnects,
            .does(.cancelTimer(.response)),
            .does(.cancelTimer(.objectPreparation)),
            .does(.cancelTimer(.connection)),
            .does(.connect(ConnectionRequest(address: device))),
            arms(.connection, .seconds(16)),
        ]
        lines += Array(resumedInitLines().dropFirst(3)).map { line in
            // Same exchange one second later.
            if case .does(.startTimer(let timer, let deadline)) = line { return arms(timer, deadline + .seconds(1)) }
            return line
        }
        lines += [
            notifies(.secureControlPoint, "60 06 01 40 00 00 00 28 00 00 00 " + le32(crc(image, 40))),
            sends(.securePacket, image[40..<64], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(2_100)),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }
}

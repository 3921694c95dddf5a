import DeviceLink
import Testing

@testable import DFUController

/// A version 0.8 legacy update of 48 bytes with PRN 2, up to the first run of 40 bytes and its receipt timer.
func legacyReceivingLines(_ image: [UInt8]) -> [Line] {
    [
        .start,
        .does(.connect(ConnectionRequest(address: device))),
        arms(.connection, .seconds(15)),
        .connected(mtu: 23, [.legacyControlPoint, .legacyPacket, .legacyVersion]),
        .does(.cancelTimer(.connection)),
        .does(.enableNotifications(.legacyControlPoint)),
        .does(.read(.legacyVersion)),
        arms(.response, .seconds(20)),
        .reads(hex("08 00")),
        .does(.cancelTimer(.response)),
        writes(.legacyControlPoint, "01 04"),  // startDFU(application)
        .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),
        arms(.response, .seconds(30)),
        notifies(.legacyControlPoint, "10 01 01"),
        writes(.legacyControlPoint, "02 00"),
        sends(.legacyPacket, legacyInit[...], size: 20),
        writes(.legacyControlPoint, "02 01"),
        arms(.response, .seconds(20)),
        notifies(.legacyControlPoint, "10 02 01"),
        writes(.legacyControlPoint, "08 02 00"),  // packetReceiptNotificationRequest(2)
        writes(.legacyControlPoint, "03"),  // receiveFirmwareImage
        sends(.legacyPacket, image[0..<40], size: 20),
        arms(.response, .milliseconds(1_100)),  // 2 packets x 50 ms + 1 s
    ]
}

/// What the controller does to restart on a new connection, `now` being the time of the input.
func restartLines(at now: Duration, resetting: Bool, request: ConnectionRequest = ConnectionRequest(address: device))
    -> [Line]
{
    (resetting ? [writes(.legacyControlPoint, "06")] : []) + [
        .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)), .does(.cancelTimer(.connection)),
        .does(.disconnect),
        arms(.disconnection, now + .seconds(5)),
        .disconnects,
        .does(.cancelTimer(.disconnection)),
        .does(.connect(request)),
        arms(.connection, now + .seconds(15)),
    ]
}

@Suite struct LegacyRecoveryTests {
    let image = testImage(48)

    @Test("a late receipt asks for the received size and goes on when the target holds every byte sent")
    func lateReceiptSizeMatches() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                .passes(.milliseconds(1_100)),
                .fires(.response),
                writes(.legacyControlPoint, "07"),  // reportReceivedImageSize
                arms(.response, .milliseconds(21_100)),
                notifies(.legacyControlPoint, "11 28 00 00 00"),  // the receipt, late: the size answer decides
                notifies(.legacyControlPoint, "10 07 01 28 00 00 00"),  // 40 bytes
                sends(.legacyPacket, image[40..<48], size: 20),
                arms(.response, .milliseconds(21_116)),
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),  // validateFirmware
                arms(.response, .milliseconds(21_100)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a target that holds fewer bytes than were sent is reset and the part restarts on a new connection")
    func lostBytesRestart() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                .passes(.milliseconds(1_100)),
                .fires(.response),
                writes(.legacyControlPoint, "07"),
                arms(.response, .milliseconds(21_100)),
                notifies(.legacyControlPoint, "10 07 01 14 00 00 00"),  // 20 bytes: a packet was lost
            ] + restartLines(at: .milliseconds(1_100), resetting: true) + [
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket, .legacyVersion]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                .does(.read(.legacyVersion)),
                arms(.response, .milliseconds(21_100)),
                .reads(hex("08 00")),
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "01 04"),  // Start DFU again, from scratch
                .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),
                arms(.response, .milliseconds(31_100)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a receipt count that disagrees with the bytes sent asks for the received size")
    func disagreeingReceipt() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 3C 00 00 00"),  // 60: more than was sent
                writes(.legacyControlPoint, "07"),
                arms(.response, .seconds(20)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a receipt repeated after the next run was sent is stale and ignored")
    func staleReceipt() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 28 00 00 00"),
                sends(.legacyPacket, image[40..<48], size: 20),
                arms(.response, .milliseconds(20_016)),
                notifies(.legacyControlPoint, "11 28 00 00 00"),  // again: nothing to do
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),
                arms(.response, .seconds(20)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("Start DFU answered invalidState (an interrupted update) resets the bootloader and starts over")
    func invalidStateRestarts() {
        var controller = legacyController(image: image)
        run(
            &controller,
            Array(legacyReceivingLines(image).prefix(13)) + [
                notifies(.legacyControlPoint, "10 01 02")
            ] + restartLines(at: .zero, resetting: true), ignoringProgressAndLogs: true)
    }

    @Test("invalidState again once reconnects are spent fails with the device's answer")
    func invalidStatePersists() {
        var controller = legacyController(image: image) { $0.maximumReconnects = 0 }
        run(
            &controller,
            Array(legacyReceivingLines(image).prefix(13)) + [
                notifies(.legacyControlPoint, "10 01 02"),
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(.rejected(.legacy(.startDFU, .invalidState)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a CRC error at Validate restarts the part; other Validate errors fail")
    func validateCRCError() {
        var controller = legacyController(image: image)
        var failing = legacyController(image: image)
        let validating: [Line] =
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 28 00 00 00"),
                sends(.legacyPacket, image[40..<48], size: 20),
                arms(.response, .milliseconds(20_016)),
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),
                arms(.response, .seconds(20)),
            ]
        run(
            &controller,
            validating + [notifies(.legacyControlPoint, "10 04 05")] + restartLines(at: .zero, resetting: true),
            ignoringProgressAndLogs: true)
        run(
            &failing,
            validating + [
                notifies(.legacyControlPoint, "10 04 06"),  // operationFailed
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(.rejected(.legacy(.validateFirmware, .operationFailed)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("Activate and Reset answered with an error is a rejection, never a confirmation (issue 16)")
    func activateRejected() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                notifies(.legacyControlPoint, "11 28 00 00 00"),
                sends(.legacyPacket, image[40..<48], size: 20),
                arms(.response, .milliseconds(20_016)),
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 04 01"),
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "05"),
                arms(.response, .seconds(20)),
                .acknowledged,  // the write's acknowledgement confirms nothing
                notifies(.legacyControlPoint, "10 05 04"),  // dataSizeExceedsLimit
                writes(.legacyControlPoint, "06"),
                .does(.disconnect),
                .does(.fail(.rejected(.legacy(.activateAndReset, .dataSizeExceedsLimit)))),
            ], ignoringProgressAndLogs: true)
        #expect(
            DFUError.rejected(.legacy(.activateAndReset, .dataSizeExceedsLimit)).description
                == "target rejected activateAndReset (0x05) with dataSizeExceedsLimit (0x04)")
    }

    @Test("a link lost mid-transfer reconnects and starts the part over")
    func linkLossRestarts() {
        var controller = legacyController(image: image)
        run(
            &controller,
            legacyReceivingLines(image) + [
                .disconnects,
                .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)),
                .does(.cancelTimer(.connection)),
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
            ], ignoringProgressAndLogs: true)
    }
}

@Suite struct SecureRecoveryTests {
    @Test("a write that times out (a stalled target) drops the link and reconnects; other failures end the update")
    func transportFailureKinds() {
        let image = testImage(160)
        for kind in LinkError.Kind.allCases {
            var controller = secureController(image: image)
            let failure = TransportFailure(operation: .write(.secureControlPoint), kind: kind, cause: "\(kind)")
            let after: [Line] =
                kind.isLinkFailure
                ? restartLines(at: .zero, resetting: false)
                : [.does(.disconnect), .does(.fail(.transport(failure)))]
            run(
                &controller, Array(secureInitLines().prefix(8)) + [.transportFails(failure)] + after,
                ignoringProgressAndLogs: true)
        }
    }

    @Test("a buttonless bootloader that reset back into the application is found at the application's address")
    func buttonlessRebootFindsApplication() {
        let app = address("C0:FF:EE:12:34:56")
        let bootloader = address("C0:FF:EE:12:34:57")
        var controller = DFUController(
            firmware: firmware(initPacket: secureInit, image: testImage(8)), target: app,
            configuration: DFUConfiguration())
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: app))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.buttonlessWithoutBonds]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.buttonlessWithoutBonds)),
                writes(.buttonlessWithoutBonds, "01"),
                arms(.response, .seconds(20)),
                notifies(.buttonlessWithoutBonds, "20 01 01"),
                .does(.cancelTimer(.response)),
                arms(.disconnection, .seconds(5)),
                .disconnects,
                .does(.cancelTimer(.disconnection)),
                .does(.connect(ConnectionRequest(address: bootloader))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.secureControlPoint, .securePacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.secureControlPoint)),
                writes(.secureControlPoint, "06 01"),
                arms(.response, .seconds(1)),
                .disconnects,  // the device reset mid-update
                .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)),
                .does(.cancelTimer(.connection)),
                .does(.connect(ConnectionRequest(address: bootloader, alternativeAddress: app))),
                arms(.connection, .seconds(15)),
                .connectedAt(mtu: 23, [.buttonlessWithoutBonds], app),  // the application came back: enter again
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.buttonlessWithoutBonds)),
                writes(.buttonlessWithoutBonds, "01"),
                arms(.response, .seconds(20)),
                notifies(.buttonlessWithoutBonds, "20 01 01"),
                .does(.cancelTimer(.response)),
                arms(.disconnection, .seconds(5)),
                .disconnects,
                .does(.cancelTimer(.disconnection)),
                .does(.connect(ConnectionRequest(address: bootloader))),
                arms(.connection, .seconds(15)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a device not found ends the update, and says whether it had been reached (75) or never was (69)")
    func vanishedDevice() {
        let notFound = TransportFailure(operation: .connect, kind: .deviceNotFound, cause: "no device")
        var never = secureController(image: testImage(8))
        run(
            &never,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .transportFails(notFound),
                .does(.disconnect),
                .does(.fail(.transport(notFound))),
            ], ignoringProgressAndLogs: true)
        #expect(!never.deviceWasReached)
        var reached = secureController(image: testImage(8))
        let dropped = TransportFailure(operation: .connect, kind: .linkLost, cause: "dropped while connecting")
        run(
            &reached,
            Array(secureInitLines().prefix(8)) + [
                .disconnects,
                .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)),
                .does(.cancelTimer(.connection)),
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .transportFails(dropped),  // a connection that drops while it is set up is tried again
                .does(.cancelTimer(.response)), .does(.cancelTimer(.objectPreparation)),
                .does(.cancelTimer(.connection)),
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .transportFails(notFound),
                .does(.disconnect),
                .does(.fail(.transport(notFound))),
            ], ignoringProgressAndLogs: true)
        #expect(reached.deviceWasReached)
    }
}

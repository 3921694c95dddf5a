import DeviceLink
import Testing

@testable import DFUController

/// Init packet bytes for transcripts (content is opaque to the controller).
let secureInit = hex("12 08 0A 04 08 01 12 00 48 01")
let device = address("C0:FF:EE:12:34:56")

func secureController(
    image: [UInt8], prn: UInt16 = 3, configure: (inout DFUConfiguration) -> Void = { _ in }
) -> DFUController {
    var configuration = DFUConfiguration()
    configuration.packetReceiptNotificationInterval = prn
    configure(&configuration)
    return DFUController(
        firmware: firmware(initPacket: secureInit, image: image), target: device, configuration: configuration)
}

/// Lines that connect to a Secure bootloader and send and execute `secureInit` from scratch, ending after the
/// answer to Select (data) is requested; `prn` is the interval set before data.
func secureInitLines(mtu: Int = 23, prn: String = "02 03 00") -> [Line] {
    [
        .start,
        .does(.connect(ConnectionRequest(address: device))),
        arms(.connection, .seconds(15)),
        .connected(mtu: mtu, [.secureControlPoint, .securePacket]),
        .does(.cancelTimer(.connection)),
        .does(.enableNotifications(.secureControlPoint)),
        writes(.secureControlPoint, "06 01"),  // selectObject(command)
        arms(.response, .seconds(1)),  // an answer 1 s late is asked for again (responseLate), until 20 s
        .acknowledged, .acknowledged,  // CCCD and Select: answers come as notifications
        notifies(.secureControlPoint, "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00"),  // max 256, offset 0, crc 0
        writes(.secureControlPoint, "01 01 0A 00 00 00"),  // createObject(command, 10)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 01 01"),
        writes(.secureControlPoint, "02 00 00"),  // setPacketReceiptNotification(0)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 02 01"),
        sends(.securePacket, secureInit[...], size: 20),
        writes(.secureControlPoint, "03"),  // calculateChecksum
        arms(.response, .milliseconds(1_050)),  // 1 packet x 50 ms + 1 s, then asked again
        notifies(.secureControlPoint, "60 03 01 0A 00 00 00 " + le32(crc(secureInit, 10))),
        writes(.secureControlPoint, "04"),  // execute
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 04 01"),
        writes(.secureControlPoint, prn),  // setPacketReceiptNotification(N)
        arms(.response, .seconds(1)),
        notifies(.secureControlPoint, "60 02 01"),
        writes(.secureControlPoint, "06 02"),  // selectObject(data)
        arms(.response, .seconds(1)),
    ]
}

@Suite struct SecureDFUTests {
    @Test("sends a three-object image at MTU 23 with PRN 3, reporting progress and what the device confirmed")
    func fullTransferMTU23() {
        let image = testImage(160)
        // Only the first object waits here; the default (automatic) makes every object wait at MTU 23, which the
        // engine tests cover against the simulated bootloader.
        var controller = secureController(image: image) { $0.objectPreparationScope = .firstObjectOfConnection }
        let progress = { (phase: DFUPhase, sent: Int, confirmed: Int) -> Line in
            .does(
                .progress(
                    DFUProgress(
                        phase: phase, part: 1, partCount: 1, bytesSent: sent, bytesConfirmed: confirmed, totalBytes: 160
                    )))
        }
        var lines = secureInitLines()
        lines.insert(progress(.connecting, 0, 0), at: 1)
        lines.insert(progress(.sendingInitPacket, 0, 0), at: 12)
        lines += [
            notifies(.secureControlPoint, "60 06 01 40 00 00 00 00 00 00 00 00 00 00 00"),  // max 64, offset 0
            progress(.sendingFirmware, 0, 0),
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64)
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            .does(.cancelTimer(.response)),
            arms(.objectPreparation, .milliseconds(400)),
            .passes(.milliseconds(400)),
            .fires(.objectPreparation),
            sends(.securePacket, image[0..<60], size: 20),
            arms(.response, .milliseconds(400 + 3 * 50 + 1000)),  // a receipt is due: PRN x 50 ms + 1 s
            notifies(.secureControlPoint, "60 03 01 3C 00 00 00 " + le32(crc(image, 60))),  // PRN at 60
            progress(.sendingFirmware, 60, 60),
            sends(.securePacket, image[60..<64], size: 20),
            writes(.secureControlPoint, "03"),  // calculateChecksum
            arms(.response, .milliseconds(1_450)),
            notifies(.secureControlPoint, "60 03 01 40 00 00 00 " + le32(crc(image, 64))),
            writes(.secureControlPoint, "04"),  // execute
            arms(.response, .milliseconds(1_400)),
            notifies(.secureControlPoint, "60 04 01"),
            progress(.sendingFirmware, 64, 64),
            writes(.secureControlPoint, "01 02 40 00 00 00"),  // createObject(data, 64); no delay after the first
            arms(.response, .milliseconds(1_400)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[64..<124], size: 20),
            arms(.response, .milliseconds(400 + 3 * 50 + 1000)),
            notifies(.secureControlPoint, "60 03 01 7C 00 00 00 " + le32(crc(image, 124))),
            progress(.sendingFirmware, 124, 124),
            sends(.securePacket, image[124..<128], size: 20),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_450)),
            notifies(.secureControlPoint, "60 03 01 80 00 00 00 " + le32(crc(image, 128))),
            writes(.secureControlPoint, "04"),
            arms(.response, .milliseconds(1_400)),
            notifies(.secureControlPoint, "60 04 01"),
            progress(.sendingFirmware, 128, 128),
            writes(.secureControlPoint, "01 02 20 00 00 00"),  // createObject(data, 32): the short last object
            arms(.response, .milliseconds(1_400)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[128..<160], size: 20),  // 2 writes < PRN 3: checksum follows at once
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_500)),
            notifies(.secureControlPoint, "60 03 01 A0 00 00 00 " + le32(crc(image, 160))),
            progress(.validating, 160, 160),
            writes(.secureControlPoint, "04"),
            arms(.response, .milliseconds(1_400)),
            notifies(.secureControlPoint, "60 04 01"),
            .does(.cancelTimer(.response)),
            .does(.log("part 1 of 1 (application) confirmed: 160 bytes, crc \(hex32(crc(image, 160)))")),
            .does(.disconnect),
            .does(
                .finish(
                    DFUSummary(parts: [
                        PartConfirmation(
                            imageType: .application, dfuProtocol: .secure, bytesConfirmed: 160, crc32: crc(image, 160),
                            evidence: .reportedChecksum(.calculateChecksum, crc32: crc(image, 160)))
                    ]))),
            notifies(.secureControlPoint, "60 04 01"),  // terminal: ignored
            .disconnects,
        ]
        run(&controller, lines)
        #expect(controller.isFinished)
    }

    @Test("sends 4 KiB objects at MTU 247 with PRN off in 244-byte writes")
    func fullTransferMTU247() {
        let image = testImage(9000)
        var controller = secureController(image: image, prn: 0) { $0.objectPreparationDelay = .zero }
        var lines = secureInitLines(mtu: 247, prn: "02 00 00")
        lines[lines.firstIndex { if case .does(.writePackets) = $0 { true } else { false } } ?? 0] =
            sends(.securePacket, secureInit[...], size: 244)
        lines += [
            notifies(.secureControlPoint, "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00"),  // max 4096
            writes(.secureControlPoint, "01 02 00 10 00 00"),  // createObject(data, 4096)
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[0..<4096], size: 244),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_850)),
            notifies(.secureControlPoint, "60 03 01 00 10 00 00 " + le32(crc(image, 4096))),
            writes(.secureControlPoint, "04"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 04 01"),
            writes(.secureControlPoint, "01 02 00 10 00 00"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[4096..<8192], size: 244),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_850)),
            notifies(.secureControlPoint, "60 03 01 00 20 00 00 " + le32(crc(image, 8192))),
            writes(.secureControlPoint, "04"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 04 01"),
            writes(.secureControlPoint, "01 02 28 03 00 00"),  // createObject(data, 808)
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 01 01"),
            sends(.securePacket, image[8192..<9000], size: 244),
            writes(.secureControlPoint, "03"),
            arms(.response, .milliseconds(1_200)),
            notifies(.secureControlPoint, "60 03 01 28 23 00 00 " + le32(crc(image, 9000))),
            writes(.secureControlPoint, "04"),
            arms(.response, .seconds(1)),
            notifies(.secureControlPoint, "60 04 01"),
            .does(.cancelTimer(.response)),
            .does(.disconnect),
            .does(
                .finish(
                    DFUSummary(parts: [
                        PartConfirmation(
                            imageType: .application, dfuProtocol: .secure, bytesConfirmed: 9000,
                            crc32: crc(image, 9000),
                            evidence: .reportedChecksum(.calculateChecksum, crc32: crc(image, 9000)))
                    ]))),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }
}

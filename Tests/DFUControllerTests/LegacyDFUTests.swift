import DeviceLink
import Testing

@testable import DFUController

let legacyInit = hex("FF FF FF FF FF FF FF FF 01 00 FE FF 66 05")  // SDK 11 sd_bl.dat layout, CRC16 0x0566

func legacyController(
    image: [UInt8], initPacket: [UInt8] = legacyInit, prn: UInt16 = 2,
    configure: (inout DFUConfiguration) -> Void = { _ in }
) -> DFUController {
    var configuration = DFUConfiguration()
    configuration.legacyPacketReceiptNotificationInterval = prn
    configure(&configuration)
    return DFUController(
        firmware: firmware(initPacket: initPacket, image: image), target: device, configuration: configuration)
}

@Suite struct LegacyDFUTests {
    let image = testImage(48)

    @Test("SDK 7–11 (version 0.8): 12-byte sizes, framed init packet, PRN and activation")
    func versionedFlow() {
        var controller = legacyController(image: image)
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket, .legacyVersion]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                .does(.read(.legacyVersion)),
                arms(.response, .seconds(20)),
                .acknowledged,
                .reads(hex("08 00")),  // version 0.8
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "01 04"),  // startDFU(application)
                .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),  // sizes 0, 0, 48
                arms(.response, .seconds(30)),
                .acknowledged,
                notifies(.legacyControlPoint, "10 01 01"),
                writes(.legacyControlPoint, "02 00"),  // initializeDFUParameters(begin)
                sends(.legacyPacket, legacyInit[...], size: 20),
                writes(.legacyControlPoint, "02 01"),  // initializeDFUParameters(complete)
                arms(.response, .seconds(20)),
                .acknowledged, .acknowledged,
                notifies(.legacyControlPoint, "10 02 01"),
                writes(.legacyControlPoint, "08 02 00"),  // packetReceiptNotificationRequest(2)
                writes(.legacyControlPoint, "03"),  // receiveFirmwareImage
                sends(.legacyPacket, image[0..<40], size: 20),
                arms(.response, .milliseconds(2 * 50 + 1000)),  // a receipt is due: PRN x 50 ms + 1 s
                notifies(.legacyControlPoint, "11 28 00 00 00"),  // 40 bytes received
                sends(.legacyPacket, image[40..<48], size: 20),  // last packet: no PRN, 10 03 01 instead
                arms(.response, .milliseconds(20_016)),
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),  // validateFirmware
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 04 01"),
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "05"),  // activateAndReset
                arms(.response, .seconds(20)),  // for the reset
                .acknowledged,  // not yet a confirmation
                .disconnects,  // the target resets to activate the validated image
                .does(.cancelTimer(.response)),
                .does(.disconnect),
                .does(
                    .finish(
                        DFUSummary(parts: [
                            PartConfirmation(
                                imageType: .application, dfuProtocol: .legacy, bytesConfirmed: 48, crc32: nil,
                                evidence: .validateResponse([0x10, 0x04, 0x01]))
                        ]))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("no Version characteristic: falls back to the v1 4-byte size packet and a bare init write")
    func v1Fallback() {
        var controller = legacyController(image: image, initPacket: hex("66 05"), prn: 0) {
            $0.maximumReconnects = 0
        }
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                writes(.legacyControlPoint, "01 04"),  // startDFU(application), v2 form
                .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),
                arms(.response, .seconds(30)),
                notifies(.legacyControlPoint, "10 01 03"),  // notSupported: an SDK ≤ 5 bootloader
                writes(.legacyControlPoint, "01"),  // startDFU, v1 form
                .does(.writePackets(.legacyPacket, [hex("30 00 00 00")])),
                arms(.response, .seconds(30)),
                notifies(.legacyControlPoint, "10 01 01"),
                writes(.legacyControlPoint, "02"),  // initializeDFUParameters, v1: one write of the CRC-16
                .does(.writePackets(.legacyPacket, [hex("66 05")])),
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 02 01"),
                writes(.legacyControlPoint, "03"),  // receiveFirmwareImage, PRN off
                sends(.legacyPacket, image[0..<48], size: 20),
                arms(.response, .milliseconds(20_096)),
                notifies(.legacyControlPoint, "10 03 01"),
                writes(.legacyControlPoint, "04"),
                arms(.response, .seconds(20)),
                notifies(.legacyControlPoint, "10 04 05"),  // crcError
                writes(.legacyControlPoint, "06"),  // reset, so the bootloader does not wait
                .does(.disconnect),
                .does(.fail(.rejected(.legacy(.validateFirmware, .crcError)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("version 0.1 is an application: jump with 01 04, then reconnect to the bootloader")
    func buttonlessJump() {
        var controller = legacyController(image: image)
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.legacyControlPoint, .legacyVersion]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                .does(.read(.legacyVersion)),
                arms(.response, .seconds(20)),
                .reads(hex("01 00")),  // version 0.1: the application
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "01 04"),  // startDFU: the application jumps, no response
                .acknowledged,
                arms(.disconnection, .seconds(5)),
                .passes(.seconds(5)),
                .fires(.disconnection),
                .does(.disconnect),
                .disconnects,
                .does(.cancelTimer(.disconnection)),
                .does(.connect(ConnectionRequest(address: device, alternativeAddress: address("C0:FF:EE:12:34:57")))),
                arms(.connection, .seconds(20)),
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket, .legacyVersion]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                .does(.read(.legacyVersion)),
                arms(.response, .seconds(25)),
                .reads(hex("08 00")),
                .does(.cancelTimer(.response)),
                writes(.legacyControlPoint, "01 04"),
                .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),
                arms(.response, .seconds(35)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a version 0.5+ bootloader without an init packet is refused before Start DFU")
    func initRequired() {
        var controller = legacyController(image: image, initPacket: [])
        run(
            &controller,
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
                .does(.disconnect),
                .does(.fail(.firmwareUnsuitable(.initPacketRequired(legacyVersion: 8)))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("cancel sends Reset (06)")
    func cancelSendsReset() {
        var controller = legacyController(image: image, initPacket: hex("66 05"))
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.legacyControlPoint)),
                writes(.legacyControlPoint, "01 04"),
                .does(.writePackets(.legacyPacket, [hex("00 00 00 00 00 00 00 00 30 00 00 00")])),
                arms(.response, .seconds(30)),
                .cancels,
                writes(.legacyControlPoint, "06"),  // reset
                arms(.response, .seconds(20)),
                .disconnects,  // the bootloader resets before acknowledging
                .does(.disconnect),
                .does(.fail(.cancelled)),
            ], ignoringProgressAndLogs: true)
    }
}

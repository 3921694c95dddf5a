import DeviceLink
import Testing

@testable import DFUController

@Suite struct ButtonlessTests {
    @Test("without bonds: sets the name, enters the bootloader and reconnects to address+1 without carry")
    func withoutBonds() {
        let app = address("C0:FF:EE:12:34:FF")
        var configuration = DFUConfiguration()
        configuration.bootloaderName = "Dfu1"
        var controller = DFUController(
            firmware: firmware(initPacket: secureInit, image: testImage(8)), target: app, configuration: configuration)
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: app))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.buttonlessWithoutBonds]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.buttonlessWithoutBonds)),
                writes(.buttonlessWithoutBonds, "02 04 44 66 75 31"),  // setAdvertisementName("Dfu1")
                arms(.response, .seconds(20)),
                .acknowledged, .acknowledged,
                notifies(.buttonlessWithoutBonds, "20 02 01"),
                writes(.buttonlessWithoutBonds, "01"),  // enterBootloader
                arms(.response, .seconds(20)),
                notifies(.buttonlessWithoutBonds, "20 01 01"),
                .does(.cancelTimer(.response)),
                arms(.disconnection, .seconds(5)),
                .disconnects,
                .does(.cancelTimer(.disconnection)),
                .does(.connect(ConnectionRequest(address: address("C0:FF:EE:12:34:00"), advertisedName: "Dfu1"))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.secureControlPoint, .securePacket]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.secureControlPoint)),
                writes(.secureControlPoint, "06 01"),
                arms(.response, .seconds(1)),
            ], ignoringProgressAndLogs: true)
    }

    @Test("with bonds: enters the bootloader, a disconnect before the indication counts, same address")
    func withBonds() {
        var controller = secureController(image: testImage(8))
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.buttonlessWithBonds]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.buttonlessWithBonds)),
                writes(.buttonlessWithBonds, "01"),  // enterBootloader
                arms(.response, .seconds(20)),
                .passes(.seconds(1)),
                .disconnects,
                .does(.cancelTimer(.response)),
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(16)),
                .connected(mtu: 23, [.buttonlessWithBonds]),  // still the application: no loop
                .does(.cancelTimer(.connection)),
                .does(.disconnect),
                .does(.fail(.noDFUService(found: [.buttonlessWithBonds]))),
            ], ignoringProgressAndLogs: true)
    }

    @Test("a buttonless error result is a rejection with its name")
    func rejected() {
        var controller = secureController(image: testImage(8))
        run(
            &controller,
            [
                .start,
                .does(.connect(ConnectionRequest(address: device))),
                arms(.connection, .seconds(15)),
                .connected(mtu: 23, [.buttonlessWithBonds]),
                .does(.cancelTimer(.connection)),
                .does(.enableNotifications(.buttonlessWithBonds)),
                writes(.buttonlessWithBonds, "01"),
                arms(.response, .seconds(20)),
                notifies(.buttonlessWithBonds, "20 01 07"),  // notBonded
                .does(.disconnect),
                .does(.fail(.rejected(.buttonless(.enterBootloader, .notBonded)))),
            ], ignoringProgressAndLogs: true)
        #expect(
            DFUError.rejected(.buttonless(.enterBootloader, .notBonded)).description
                == "target rejected enterBootloader (0x01) with notBonded (0x07)")
    }
}

@Suite struct MultiPartTests {
    @Test("sends SoftDevice+bootloader, waits for the reset, reconnects and sends the application")
    func twoParts() throws {
        let first = testImage(8, seed: 3)
        let second = testImage(8, seed: 5)
        let update = try DFUFirmware(parts: [
            DFUFirmware.Part(
                imageType: .softDeviceAndBootloader(softDeviceSize: 4, bootloaderSize: 4), initPacket: secureInit,
                image: first),
            DFUFirmware.Part(imageType: .application, initPacket: secureInit, image: second),
        ])
        var configuration = DFUConfiguration()
        configuration.packetReceiptNotificationInterval = 0
        configuration.objectPreparationDelay = .zero
        var controller = DFUController(firmware: update, target: device, configuration: configuration)
        func part(_ image: [UInt8]) -> [Line] {
            [
                notifies(.secureControlPoint, "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00"),
                writes(.secureControlPoint, "01 02 08 00 00 00"),  // createObject(data, 8)
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 01 01"),
                sends(.securePacket, image[...], size: 20),
                writes(.secureControlPoint, "03"),
                arms(.response, .milliseconds(1_050)),
                notifies(.secureControlPoint, "60 03 01 08 00 00 00 " + le32(crc(image, 8))),
                writes(.secureControlPoint, "04"),
                arms(.response, .seconds(1)),
                notifies(.secureControlPoint, "60 04 01"),
                .does(.cancelTimer(.response)),
            ]
        }
        var lines = secureInitLines(prn: "02 00 00") + part(first)
        lines += [
            arms(.disconnection, .seconds(5)),
            .disconnects,
            .does(.cancelTimer(.disconnection)),
            .does(.connect(ConnectionRequest(address: device))),
            arms(.connection, .seconds(15)),
        ]
        lines += secureInitLines(prn: "02 00 00").dropFirst(3) + part(second)
        lines += [
            .does(.disconnect),
            .does(
                .finish(
                    DFUSummary(parts: [
                        PartConfirmation(
                            imageType: .softDeviceAndBootloader(softDeviceSize: 4, bootloaderSize: 4),
                            dfuProtocol: .secure,
                            bytesConfirmed: 8, crc32: crc(first, 8),
                            evidence: .reportedChecksum(.calculateChecksum, crc32: crc(first, 8))),
                        PartConfirmation(
                            imageType: .application, dfuProtocol: .secure, bytesConfirmed: 8, crc32: crc(second, 8),
                            evidence: .reportedChecksum(.calculateChecksum, crc32: crc(second, 8))),
                    ]))),
        ]
        run(&controller, lines, ignoringProgressAndLogs: true)
    }

    @Test("rejects firmware the bootloaders cannot take")
    func invalidFirmware() {
        #expect(throws: DFUError.invalidFirmware(.imageNotWordAligned(.application, size: 5))) {
            try DFUFirmware.Part(imageType: .application, initPacket: [], image: [1, 2, 3, 4, 5])
        }
        #expect(throws: DFUError.invalidFirmware(.noParts)) { try DFUFirmware(parts: []) }
        #expect(
            throws: DFUError.invalidFirmware(
                .componentSizesMismatch(softDeviceSize: 4, bootloaderSize: 8, imageSize: 8))
        ) {
            try DFUFirmware.Part(
                imageType: .softDeviceAndBootloader(softDeviceSize: 4, bootloaderSize: 8), initPacket: [],
                image: testImage(8))
        }
    }
}

@Suite struct BluetoothAddressTests {
    @Test("round-trips through text", arguments: ["C0:FF:EE:12:34:56", "00:00:00:00:00:00", "FF:FF:FF:FF:FF:FF"])
    func roundTrip(text: String) throws {
        #expect(try BluetoothAddress(parsing: text).description == text)
        #expect(try BluetoothAddress(parsing: text.lowercased()).description == text)
        #expect(try BluetoothAddress(parsing: text.replacingColons()).description == text)
    }

    @Test(
        "rejects malformed text",
        arguments: ["", "C0:FF:EE:12:34", "C0:FF:EE:12:34:56:78", "G0:FF:EE:12:34:56", "C0FFEE1234"])
    func rejects(text: String) {
        #expect(throws: BluetoothAddressParseError(text: text)) { try BluetoothAddress(parsing: text) }
    }

    @Test(
        "the unbonded bootloader address adds one to the last byte without carry",
        arguments: [
            ("C0:FF:EE:12:34:56", "C0:FF:EE:12:34:57"), ("C0:FF:EE:12:34:FF", "C0:FF:EE:12:34:00"),
            ("FF:FF:FF:FF:FF:FF", "FF:FF:FF:FF:FF:00"),
        ])
    func increment(from: String, to: String) {
        #expect(address(from).incrementedLeastSignificantByte == address(to))
    }
}

extension String {
    fileprivate func replacingColons() -> String { split(separator: ":").joined() }
}

import ArgumentParser
import NRFLoaderKit

/// Init packet fields for `.hex`, `.bin` and catalog inputs (packages bring their own).
struct InitPacketOptions: ParsableArguments {
    @Option(help: "The DFU protocol of generated init packets: secure (SDK 12+) or legacy (SDK 7-11).")
    var dfu: ProtocolArgument?

    @Option(name: .customLong("sd-req"), help: "SoftDevice firmware ids the image needs, e.g. 0x0101,0x0100.")
    var softdeviceRequired: SoftDeviceList?

    @Option(help: "Secure: the bootloader's hardware version (default: the catalog's, else 52).")
    var hwVersion: UInt32?

    @Option(help: "Secure: fw_version; legacy: application version (default: the catalog's, else 0xFFFFFFFF).")
    var fwVersion: UInt32?

    @Option(help: "Legacy: device type (default 0xFFFF, any).")
    var devType: UInt16?

    @Option(help: "Legacy: device revision (default 0xFFFF, any).")
    var devRevision: UInt16?

    @Option(help: "Sign generated Secure DFU init packets with this private key (PEM, as nrfutil keys generate).")
    var key: String?

    @Option(help: "Check every init packet's signature against this public key (PEM or Nordic's 64-byte form) first.")
    var verifyKey: String?

    /// The options as the library takes them (`--catalog` is the caller's to add).
    var firmwareOptions: FirmwareOptions {
        var options = FirmwareOptions()
        options.dfuProtocol = dfu.map { $0 == .secure ? .secure : .legacy }
        options.softDeviceRequirements = softdeviceRequired?.ids
        options.hardwareVersion = hwVersion
        options.firmwareVersion = fwVersion
        options.deviceType = devType
        options.deviceRevision = devRevision
        options.signingKeyFile = key
        options.verificationKeyFile = verifyKey
        return options
    }
}

/// `--sd-req 0x0101,0x0100`: SoftDevice firmware ids, hex with `0x` or decimal.
struct SoftDeviceList: ExpressibleByArgument {
    let ids: [UInt16]

    init?(argument: String) {
        var ids: [UInt16] = []
        for item in argument.split(separator: ",") {
            guard let value = AddressArgument(argument: String(item)), value.value <= 0xFFFF else { return nil }
            ids.append(UInt16(value.value))
        }
        guard !ids.isEmpty else { return nil }
        self.ids = ids
    }
}

/// `--dfu secure|legacy`.
enum ProtocolArgument: String, ExpressibleByArgument, CaseIterable {
    case secure
    case legacy
}

/// The DFU engine's policy from the command line.
struct EngineOptions: ParsableArguments {
    @Option(help: "Packet receipt notification interval in packets, 0 for none (default 12 Secure, 10 legacy).")
    var prn: UInt16?

    @Option(help: "Attempts per object, and reconnects in a row, before the update fails (default 3).")
    var retries: Int?

    @Option(help: "Seconds to wait for each response from the device (default 20).")
    var timeout: Int?

    @Flag(help: "Start every part from the beginning instead of resuming what the device already holds.")
    var noResume = false

    func validate() throws {
        if let retries, retries < 1 { throw ValidationError("--retries must be at least 1") }
        if let timeout, timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
    }

    /// The options as the library takes them.
    var updateOptions: UpdateOptions {
        var options = UpdateOptions()
        options.packetReceiptNotificationInterval = prn.map(Int.init)
        options.retries = retries
        options.timeout = timeout.map { .seconds($0) }
        options.resumes = !noResume
        return options
    }
}

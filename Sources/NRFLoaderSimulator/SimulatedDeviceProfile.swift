package import DFUSimulator
package import DeviceLink
import MCUbootImage
package import NRFLoaderKit
import SMP
package import SMPSimulator

/// A simulated device to serve to a host: which device it is and how it behaves, for `SerialDeviceSimulator`
/// (NRFLoaderSerial) and `BluetoothDeviceSimulator` (NRFLoaderBlueZ), as `nrfloader simulate-serial` and
/// `nrfloader simulate` serve one.
///
/// The nRF5 kinds are a bootloader (or an application with buttonless DFU) that checks what it receives as the real
/// one does and activates it; the SMP kind is a Zephyr application with MCUmgr on MCUboot, running image 0.0.1,
/// that swaps a new image in when it resets.
public struct SimulatedDeviceProfile: Sendable {
    /// The device.
    public var kind: SimulatedDeviceKind
    /// Secure kinds: the hardware version the bootloader accepts (`NRF_DFU_HW_VERSION`).
    public var hardwareVersion: UInt32 = 52
    /// nRF5 kinds: the installed SoftDevice's firmware id, `nil` for the bootloader's default (0xA8 for a Secure
    /// bootloader, 0x87 for a legacy one); at most 0xFFFF for a legacy bootloader.
    public var softDeviceID: UInt32?
    /// Secure kinds: require init packet signatures and check them with this key's public part (a PEM public or
    /// private key, or Nordic's 64-byte public key, raw or hex); `nil` checks none.
    public var signatureKeyFile: String?
    /// The flash timing, `nil` for the kind's own (nRF52 for the Secure kinds and SMP, nRF51 for the legacy ones).
    public var flash: SimulatedFlash?
    /// Faults to inject, as `--sim-fault` spells them (`disconnect@6000`, `drop-packet@40`, `drop-packet~0.01`);
    /// ``SimulatedDeviceKind/faultProblem(_:)`` tells whether the kind simulates one.
    public var faults: [String] = []
    /// The seed of random faults (`drop-packet~0.01`).
    public var faultSeed: UInt64 = 0
    /// The advertised name of the mode the device starts in, `nil` for the kind's own (`DfuTarg`, `Nordic_App` for
    /// buttonless, `Zephyr` for SMP).
    public var name: String?
    /// SMP: the size of each image slot in bytes, at least 4096 (a padded image must match it).
    public var smpSlotSize = 0x4_0000
    /// SMP: how many images the device updates, 1 to 16, each with two slots (2 is an nRF5340: image 0 the
    /// application core in slots 0 and 1, image 1 the network core in slots 2 and 3).
    public var smpImageCount = 1
    /// SMP: the MCUmgr parameters the device answers (buffer size, buffer count); `nil` answers rc 8, as Zephyr does
    /// without `CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS`.
    public var smpParameters: (bufferSize: Int, bufferCount: Int)?
    /// SMP: how the device misbehaves on purpose after a correct start, `nil` for a well-behaved device.
    public var smpMisbehaviour: SMPMisbehaviour?
    /// SMP: whether the device starts in MCUboot's serial recovery (`boot_serial.c`): uploads go straight to the
    /// primary slot, state writes, erase, echo and parameters answer rc 8, requests longer than 1024 bytes are
    /// dropped, and a reset boots the primary slot's image, which then answers as the application.
    public var smpSerialRecovery = false
    /// SMP: MCUboot's mode (`enum mcuboot_mode`) the device reports to `os bootloader info` and boots by: 2
    /// overwrite-only, 4 direct-XIP, 6 RAM-load, 1 or 3 swap; `nil`: the OS group's
    /// own answer (swap using scratch).
    public var smpBootloaderMode: Int?
    /// SMP: the management groups the device is built without, by id.
    ///
    /// 2 statistics, 3 settings, 8 file system, 9 shell, 10 enumeration, 63 Zephyr basic: they answer every command
    /// with rc 8, `MGMT_ERR_ENOTSUP`, as a Zephyr build without them does. The OS and image groups are always built
    /// in.
    public var smpGroupsLeftOut: Set<Int> = []

    /// A well-behaved device of `kind` with its defaults.
    ///
    /// - Parameter kind: The device.
    public init(_ kind: SimulatedDeviceKind = .secure) {
        self.kind = kind
    }

    /// The image an SMP device runs before any update: version 0.0.1, 4 KiB of 0xA5.
    package static var runningSMPImage: [UInt8] {
        UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
    }

    /// Checks what the device's options allow.
    ///
    /// - Throws: `UpdateError` with `ExitStatus/usage` naming the option.
    package func validate() throws(UpdateError) {
        func refuse(_ message: String) -> UpdateError { UpdateError(OptionError(message: message), status: .usage) }
        for text in faults {
            switch kind.faultProblem(text) {
            case nil: continue
            case .malformed(let message)?: throw refuse(message)
            case .unsupported(let reason)?: throw refuse("fault '\(text)' \(reason)")
            }
        }
        guard kind == .smp else { return }
        guard smpSlotSize >= 0x1000 else { throw refuse("an SMP slot must be at least 4096 bytes") }
        guard (1...16).contains(smpImageCount) else { throw refuse("an SMP device updates 1 to 16 images") }
    }

    /// The faults as the simulator takes them.
    ///
    /// - Throws: `UpdateError` with `ExitStatus/usage` for a text that is not a fault.
    package func faultPlan() throws(UpdateError) -> FaultPlan {
        do {
            return FaultPlan(seed: faultSeed, faults: try faults.map { try FaultSpecification.parse($0) })
        } catch {
            throw UpdateError(error, status: .usage)
        }
    }

    /// The nRF5 device's configuration: its bootloader's options, flash timing, name and faults.
    ///
    /// - Returns: The configuration, at the simulator's default address.
    /// - Throws: `UpdateError` when the signature key cannot be read or holds no key, or a legacy SoftDevice id
    ///   does not fit 16 bits.
    package func dfuConfiguration() throws(UpdateError) -> SimulatorConfiguration {
        guard let dfuKind = kind.dfuKind else { preconditionFailure("the \(kind.rawValue) device is not an nRF5 one") }
        var secure = SecureBootloaderOptions()
        secure.hardwareVersion = hardwareVersion
        var legacySoftDevice: UInt16?
        if let softDeviceID {
            secure.softDeviceFWID = softDeviceID
            if dfuKind.protocolFamily == .legacy {
                guard let legacy = UInt16(exactly: softDeviceID) else {
                    throw UpdateError(
                        OptionError(message: "a legacy bootloader's SoftDevice id is at most 0xFFFF"), status: .usage)
                }
                legacySoftDevice = legacy
            }
        }
        if let signatureKeyFile {
            secure.signature = try UpdateError.wrapping { try .verified(keyFile: signatureKeyFile) }
        }
        var configuration = SimulatorSetup.configuration(
            dfuKind, secure: secure, legacySoftDevice: legacySoftDevice, faults: try faultPlan())
        if let flash { configuration.flash = flash.timing(pageSize: configuration.flash.pageSize) }
        if let name {
            if dfuKind == .buttonless {
                configuration.applicationName = name
            } else {
                configuration.bootloaderName = name
            }
        }
        return configuration
    }

    /// The SMP device, running ``runningSMPImage``.
    package func smpDevice() -> SimulatedSMPDevice {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: smpSlotSize)
        configuration.imageCount = smpImageCount
        configuration.misbehaviour = smpMisbehaviour?.engine
        configuration.startsInSerialRecovery = smpSerialRecovery
        configuration.bootloaderMode = smpBootloaderMode
        if let smpParameters {
            configuration.answersParameters = true
            configuration.parameters = MCUmgrParameters(
                bufferSize: smpParameters.bufferSize, bufferCount: smpParameters.bufferCount)
        }
        var device = SimulatedSMPDevice(configuration: configuration, running: Self.runningSMPImage)
        device.managementGroups.builtIn.subtract(smpGroupsLeftOut.compactMap { UInt16(exactly: $0) })
        return device
    }
}

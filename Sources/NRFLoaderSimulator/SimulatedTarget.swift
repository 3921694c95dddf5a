import DFUController
package import DFUSimulator
import DeviceLink
import MCUbootImage
import MCUbootPackage
public import NRFLoaderKit
import SMP
package import SMPSimulator
import Synchronization

/// The kinds of built-in simulated device: Nordic's nRF5 bootloaders and a Zephyr/MCUboot device.
public enum SimulatedDeviceKind: String, Sendable, CaseIterable {
    /// A Secure DFU bootloader (nRF5 SDK 12–17), waiting in DFU mode.
    case secure
    /// An application with Secure buttonless DFU (no bonds): the bootloader comes back at address + 1.
    case buttonless
    /// A legacy DFU bootloader (nRF5 SDK 7–11, DFU version 0.8).
    case legacy
    /// The oldest legacy bootloader (nRF51 SDK 4–5), as nRF Loader spoke to.
    case legacyV1 = "legacy-v1"
    /// A Zephyr application with MCUmgr's image group over SMP, and MCUboot swapping slots.
    case smp

    /// How `nrfloader upload --target` names the kind: `sim`, `sim:buttonless`, …, `sim:smp`.
    public var targetName: String { self == .secure ? "sim" : "sim:\(rawValue)" }

    /// The nRF5 DFU protocol the device speaks, or `nil` for ``SimulatedDeviceKind/smp``: devices of one fleet
    /// must share it, since its init packets are made once.
    public var dfuProtocol: FirmwareOptions.DFUProtocol? {
        switch self {
        case .secure, .buttonless: .secure
        case .legacy, .legacyV1: .legacy
        case .smp: nil
        }
    }

    package var dfuKind: SimulatedTargetKind? {
        switch self {
        case .secure: .secure
        case .buttonless: .buttonless
        case .legacy: .legacy
        case .legacyV1: .legacyV1
        case .smp: nil
        }
    }
}

/// How a simulated device behaves: `nrfloader upload`'s `--sim-speed`, `--sim-fault`, `--sim-seed`, `--sim-images`
/// and `--sim-smp-params`.
public struct SimulatedDeviceOptions: Sendable {
    /// The pace: 1 is real time (a BLE link's timing), 10 ten times faster, 0 as fast as possible.
    public var speed: Double = 1
    /// Faults to inject, as `--sim-fault` spells them (`disconnect@6000`, `drop-packet@40`, `drop-packet~0.01`).
    public var faults: [String] = []
    /// The seed of random faults (`drop-packet~0.01`).
    public var seed: UInt64 = 0
    /// SMP: how many images the device updates (image 0: slots 0 and 1, image 1: slots 2 and 3, …); by default as
    /// many as the firmware needs.
    public var smpImages: Int?
    /// SMP: the MCUmgr parameters the device answers (buffer size, buffer count); by default it answers rc 8, as
    /// Zephyr does without `CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS`.
    public var smpParameters: (bufferSize: Int, bufferCount: Int)?
    /// How events name the device (default: the kind's ``SimulatedDeviceKind/targetName``).
    public var name: String?
    /// nRF5 kinds: the address the device first advertises at, `AA:BB:CC:DD:EE:FF` (default `C0:DE:00:00:00:01`).
    ///
    /// A kind that starts in its bootloader gets its application one address below, so that the bootloader is found
    /// here. Give each device of a fleet its own.
    public var address: String?

    /// A device at real-time pace, without faults.
    public init() {}
}

/// A built-in simulated device, in this process: the same bootloaders `nrfloader upload --target sim` updates.
///
/// Use ``target`` to update it, then ``images`` to see what it holds. The device is made when an update starts
/// (set up to accept that firmware: its hardware version and SoftDevice), and kept until the next one.
///
/// The `.smp` device also takes management requests through `SMPDevice`: they reach the device the last update left,
/// or, before any update, a device running image 0.0.1 confirmed in slot 0 with its other slots empty, kept for the
/// requests that follow (a reset swaps to an image marked for test, as MCUboot does).
public final class SimulatedTarget: Sendable {
    /// One image the device holds.
    public struct Image: Sendable {
        /// `application`, `softdevice` or `bootloader` for an nRF5 device (each image it activated); `slot0`,
        /// `slot1`, … for an SMP device (every slot, whole).
        public let name: String
        /// The bytes.
        public let bytes: [UInt8]
    }

    /// The kind of device.
    public let kind: SimulatedDeviceKind
    /// Its behaviour.
    public let options: SimulatedDeviceOptions

    private enum State {
        case none
        case dfu(SimulatedTransport)
        case smp(SimulatedSMPTransport)
    }

    private let state = Mutex<State>(.none)
    private let deviceAddress: DeviceAddress?

    /// nRF5 kinds: the address the device first advertises at (its bootloader's, for a kind that starts there);
    /// `nil` for the SMP device, which has no address.
    public var address: String? {
        guard let dfuKind = kind.dfuKind else { return nil }
        return makeDevice(
            SimulatorSetup.configuration(
                dfuKind, secure: SecureBootloaderOptions(), legacySoftDevice: nil, faults: FaultPlan()
            )
        ).advertisement?.address.description
    }

    private func makeDevice(_ configuration: SimulatorConfiguration) -> SimulatedDevice {
        guard let deviceAddress else { return SimulatedDevice(configuration: configuration) }
        return SimulatedDevice.advertising(configuration, at: deviceAddress)
    }

    /// A simulated device of `kind`.
    ///
    /// - Throws: `UpdateError` with `ExitStatus/usage` for a fault the device cannot simulate.
    public init(_ kind: SimulatedDeviceKind = .secure, options: SimulatedDeviceOptions = SimulatedDeviceOptions())
        throws(UpdateError)
    {
        self.kind = kind
        self.options = options
        if let address = options.address {
            guard let parsed = DeviceAddress(address) else {
                throw UpdateError(OptionError(message: "'\(address)' is not a Bluetooth address"), status: .usage)
            }
            deviceAddress = parsed
        } else {
            deviceAddress = nil
        }
        let plan = try faultPlan()
        if kind == .smp {
            for fault in plan.faults {
                if let reason = SimulatedSMPTransport.unsupportedReason(fault) {
                    throw UpdateError(OptionError(message: "fault '\(fault)' \(reason)"), status: .usage)
                }
            }
        }
    }

    /// The target that updates this device.
    public var target: UpdateTarget {
        let openManagementLink: UpdateTarget.OpenManagementLink? =
            kind == .smp ? { @Sendable _ throws(UpdateError) in try self.managementTransport() } : nil
        // A simulated device speaks one protocol: the nRF5 bootloaders DFU, the MCUboot device SMP.
        let dfu: UpdateTarget.Run = { firmware, updateOptions, onEvent throws(UpdateError) in
            try await self.updateDFU(firmware, updateOptions, onEvent)
        }
        let smp: UpdateTarget.Run = { firmware, updateOptions, onEvent throws(UpdateError) in
            try await self.updateSMP(firmware, updateOptions, faults: try self.faultPlan(), onEvent)
        }
        let isDFU = kind.dfuKind != nil
        return UpdateTarget(
            description: options.name ?? kind.targetName, lane: "sim", openManagementLink: openManagementLink,
            dfu: isDFU ? dfu : nil, smp: isDFU ? nil : smp)
    }

    /// The link management requests go over: to the device the last update left, or to a new default device, kept.
    private func managementTransport() throws(UpdateError) -> SimulatedSMPTransport {
        let faults = try faultPlan()
        let speed = speed
        let parameters = options.smpParameters
        let imageCount = options.smpImages ?? 1
        return state.withLock { state in
            if case .smp(let transport) = state { return transport }
            let device = Self.smpDevice(slotSize: 0x4_0000, imageCount: imageCount, parameters: parameters)
            let transport = SimulatedSMPTransport(device: device, faults: faults, speed: speed)
            state = .smp(transport)
            return transport
        }
    }

    /// The simulated SMP device before any update, as `nrfloader upload --target sim:smp` and the management verbs
    /// find it: Zephyr on MCUboot running image 0.0.1 (a 4 KiB body) confirmed in slot 0, the other slots empty.
    ///
    /// - Parameters:
    ///   - slotSize: Each slot's size in bytes.
    ///   - imageCount: How many images the device updates, each with two slots.
    ///   - parameters: The MCUmgr parameters it answers, or `nil` to answer rc 8 as Zephyr does by default.
    /// - Returns: The device.
    package static func smpDevice(
        slotSize: Int, imageCount: Int = 1, parameters: (bufferSize: Int, bufferCount: Int)? = nil
    ) -> SimulatedSMPDevice {
        var configuration = SimulatedSMPDevice.Configuration(slotSize: slotSize)
        configuration.imageCount = imageCount
        if let parameters {
            configuration.answersParameters = true
            configuration.parameters = MCUmgrParameters(
                bufferSize: parameters.bufferSize, bufferCount: parameters.bufferCount)
        }
        let running = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 0, minor: 0, revision: 1, build: 0),
            body: [UInt8](repeating: 0xA5, count: 4096))
        return SimulatedSMPDevice(configuration: configuration, running: running)
    }

    /// What the device holds after the last update (also a failed one): each image it activated, or its slots.
    public var images: [Image] {
        switch state.withLock({ $0 }) {
        case .none: return []
        case .dfu(let transport):
            return Self.images(of: transport.device)
        case .smp(let transport):
            return Self.images(of: transport.device)
        }
    }

    /// What an nRF5 simulated device activated, one image per component.
    package static func images(of device: SimulatedDevice) -> [Image] {
        let names: [(DFUSimulator.FirmwareType, String)] = [
            (.application, "application"), (.softDevice, "softdevice"), (.bootloader, "bootloader"),
        ]
        return names.compactMap { type, name in device.activatedImage(type).map { Image(name: name, bytes: $0) } }
    }

    /// Every slot of a simulated SMP device, whole: `slot0`, `slot1` for image 0, `slot2`, `slot3` for image 1, ….
    package static func images(of device: SimulatedSMPDevice) -> [Image] {
        device.slots.enumerated().map { Image(name: "slot\($0.offset)", bytes: $0.element) }
    }

    private func faultPlan() throws(UpdateError) -> FaultPlan {
        do {
            return try SimulatorSetup.faultPlan(options.faults, seed: options.seed)
        } catch {
            throw UpdateError(OptionError(message: "fault: \(error)"), status: .usage)
        }
    }

    private var speed: Double? { options.speed > 0 ? options.speed : nil }

    private func updateDFU(_ firmware: Firmware, _ updateOptions: UpdateOptions, _ onEvent: (UpdateEvent) -> Void)
        async throws(UpdateError) -> UpdateSummary
    {
        let faults = try faultPlan()
        guard let dfuKind = kind.dfuKind else { preconditionFailure("a DFU update of the \(kind.rawValue) device") }
        let (dfuFirmware, packages) = try UpdateError.wrapping { try firmware.dfuUpdate(defaultProtocol: nil) }
        let device = makeDevice(SimulatorSetup.configuration(dfuKind, for: packages, faults: faults))
        // One timeout model (issue 23): the simulated link's ATT wait is the response timeout, as BlueZ's is.
        let transport = SimulatedTransport(
            device: device, speed: speed, operationTimeout: updateOptions.dfuConfiguration.responseTimeout)
        state.withLock { $0 = .dfu(transport) }
        guard let advertised = device.advertisement else {
            throw UpdateError(OptionError(message: "the simulated \(kind.rawValue) device does not advertise"))
        }
        let address = try UpdateError.wrapping { try BluetoothAddress(parsing: advertised.address.description) }
        return try await DFUSession.run(
            dfuFirmware, input: firmware.name, to: address,
            named: "\(options.name ?? kind.targetName) (\(advertised.address))", over: transport,
            configuration: updateOptions.dfuConfiguration, onEvent: onEvent)
    }

    private func updateSMP(
        _ firmware: Firmware, _ updateOptions: UpdateOptions, faults: FaultPlan, _ onEvent: (UpdateEvent) -> Void
    ) async throws(UpdateError) -> UpdateSummary {
        let (images, package) = try firmware.mcubootImages(for: options.name ?? kind.targetName)
        let imageCount = options.smpImages ?? images.imageCount
        if let outside = images.first(where: { $0.image >= imageCount }) {
            throw UpdateError(
                MCUbootPackageError.badManifest(
                    archive: package ?? outside.name, field: "image_index of '\(outside.name)'",
                    problem: "is \(outside.image), but the simulated device updates \(imageCount) image"
                        + (imageCount == 1 ? "" : "s") + " (SimulatedDeviceOptions.smpImages \(imageCount))"),
                mentioning: [.simulatedImageCount(imageCount)])
        }
        // A padded image (imgtool --pad or --confirm) is exactly one slot long: the trailer must land at the slot's end.
        let padded = images.filter(\.fillsSlot).map(\.bytes.count)
        let largest = images.map(\.bytes.count).max() ?? 0
        let slotSize = padded.max() ?? max(0x4_0000, largest)
        let device = Self.smpDevice(
            slotSize: max(slotSize, largest), imageCount: imageCount, parameters: options.smpParameters)
        let transport = SimulatedSMPTransport(device: device, faults: faults, speed: speed)
        state.withLock { $0 = .smp(transport) }
        return try await SMPSession.run(
            images, package: package, named: options.name ?? kind.targetName, over: transport,
            configuration: updateOptions.smpConfiguration, onEvent: onEvent)
    }
}

extension UpdateTarget {
    /// A built-in simulated device of `kind`, in this process.
    ///
    /// To see what the device holds afterwards, make a ``SimulatedTarget`` and use its ``SimulatedTarget/target``.
    ///
    /// - Throws: `UpdateError` with `ExitStatus/usage` for a fault the device cannot simulate.
    public static func simulated(
        _ kind: SimulatedDeviceKind = .secure, options: SimulatedDeviceOptions = SimulatedDeviceOptions()
    ) throws(UpdateError) -> UpdateTarget {
        try SimulatedTarget(kind, options: options).target
    }
}

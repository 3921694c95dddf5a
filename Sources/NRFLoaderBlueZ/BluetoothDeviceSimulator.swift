import BlueZ
import DFUSimulator
public import NRFLoaderKit
public import NRFLoaderSimulator
import SMPSimulator
import SimulatedPeripheral
import Synchronization

/// Serves a simulated device through BlueZ, as `nrfloader simulate` does: its GATT services as a GATT application
/// and its advertisement on an adapter, so that a central (another adapter, another program, a phone) can find it
/// and update it.
///
/// The nRF5 kinds are a Secure DFU bootloader, an application with buttonless DFU (whose bootloader moves to an
/// adapter at address + 1 when there is one) and the legacy bootloaders; the SMP kind is a Zephyr application with
/// MCUmgr's SMP service on MCUboot, which drops the link, reboots and advertises again when it is reset.
/// ``run(stoppingAfterActivations:onEvent:)`` serves until ``stop()``, the task's cancellation or enough
/// activations, then unregisters everything.
public final class BluetoothDeviceSimulator: Sendable {
    /// The device served.
    public let device: SimulatedDeviceProfile
    /// How it is served.
    public let options: Options
    private let running = Mutex<Running>(.notStarted)

    private enum Running {
        case notStarted
        case dfu(SimulatedPeripheral)
        case smp(SimulatedSMPPeripheral)
        case stopped
    }

    /// How a simulated device is presented to BlueZ.
    public struct Options: Sendable {
        /// The adapter to register on, such as `hci1`; `nil` for the first powered one.
        public var adapter: String?
        /// The ATT MTU a central is taken to ask for, 23 to 517 (BlueZ does not tell a GATT server the MTU).
        public var mtu = 247
        /// Whether `AcquireWrite` and `AcquireNotify` are offered; without them a central must use `WriteValue` and
        /// `StartNotify`.
        public var offersAcquire = true
        /// Whether `AcquireWrite` is offered on the packet (or SMP) characteristic too, when ``offersAcquire`` is
        /// true.
        ///
        /// Off by default: bluetoothd 5.66 can deliver the first packet through it late or stale.
        public var offersAcquireWrite = false

        /// The first powered adapter, MTU 247, `AcquireNotify` without `AcquireWrite`.
        public init() {}
    }

    /// A simulator of `device`; nothing happens on the bus until ``run(stoppingAfterActivations:onEvent:)``.
    ///
    /// - Parameters:
    ///   - device: The device, of any `SimulatedDeviceKind`.
    ///   - options: The adapter, MTU and `Acquire*` support.
    public init(serving device: SimulatedDeviceProfile, options: Options = Options()) {
        self.device = device
        self.options = options
    }

    /// Makes ``run(stoppingAfterActivations:onEvent:)`` unregister everything and return; callable from any thread,
    /// also from its `onEvent`, and before it starts.
    public func stop() {
        let current = running.withLock { running in
            defer { running = .stopped }
            return running
        }
        switch current {
        case .dfu(let peripheral): peripheral.stop()
        case .smp(let peripheral): peripheral.stop()
        case .notStarted, .stopped: break
        }
    }

    /// Registers the device and serves it until ``stop()``, the task's cancellation, or `limit` activations.
    ///
    /// Call it once. An nRF5 device stops once it advertises the firmware of its `limit`th activation; the SMP
    /// device once the central that came back after its `limit`th activation (to check and confirm the image) has
    /// left.
    ///
    /// - Parameters:
    ///   - limit: Stop after this many activations (at least 1), `nil` to serve until stopped.
    ///   - onEvent: Receives every ``Event`` in order, on whichever thread it happened with the device locked: it
    ///     must return quickly, and may call ``stop()``.
    /// - Returns: What the device did.
    /// - Throws: `UpdateError` with `ExitStatus/unavailable` when BlueZ, the adapter or a registration is refused
    ///   or the bus goes away; with `ExitStatus/usage` for an option the device does not take; the error reading
    ///   the signature key.
    public func run(stoppingAfterActivations limit: Int? = nil, onEvent: @escaping @Sendable (Event) -> Void)
        async throws(UpdateError) -> Report
    {
        try device.validate()
        guard (23...517).contains(options.mtu) else {
            throw UpdateError(OptionError(message: "an ATT MTU is 23 to 517, not \(options.mtu)"), status: .usage)
        }
        if let limit, limit < 1 {
            throw UpdateError(OptionError(message: "a simulator stops after at least 1 activation"), status: .usage)
        }
        // Stopped before it started: nothing to register.
        guard running.withLock({ if case .stopped = $0 { false } else { true } }) else { return Self.nothingDone }
        if device.kind == .smp { return try await runSMP(limit: limit, onEvent: onEvent) }
        let configuration = try device.dfuConfiguration()
        let (client, adapter) = try await Self.connect(adapter: options.adapter)
        guard let address = adapter.address.flatMap({ DeviceAddress($0.description) }) else {
            throw UpdateError(BlueZError.noAdapter(requested: adapter.interfaceName), status: .unavailable)
        }
        let peripheral = SimulatedPeripheral(
            client: client, adapter: adapter, device: .advertising(configuration, at: address),
            options: SimulatedPeripheralOptions(
                mtu: options.mtu, offersAcquire: options.offersAcquire,
                offersAcquireWrite: options.offersAcquireWrite))
        guard start(.dfu(peripheral)) else { return Self.nothingDone }
        let progress = Mutex(DFUProgress())
        do {
            try await peripheral.run { event in
                for translated in Event.translating(event) { onEvent(translated) }
                let isDone = progress.withLock { $0.record(event, limit: limit) }
                if isDone { peripheral.stop() }
            }
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
        let (activations, images) = progress.withLock { ($0.activations, $0.images) }
        return Report(activations: activations, images: images, smpUpload: nil)
    }

    private func runSMP(limit: Int?, onEvent: @escaping @Sendable (Event) -> Void) async throws(UpdateError)
        -> Report
    {
        var peripheralOptions = SMPPeripheralOptions()
        if let name = device.name { peripheralOptions.name = name }
        peripheralOptions.mtu = options.mtu
        peripheralOptions.offersAcquireNotify = options.offersAcquire
        peripheralOptions.offersAcquireWrite = options.offersAcquireWrite && options.offersAcquire
        peripheralOptions.takesSwapTime = device.flash != .instant
        peripheralOptions.faults = try device.faultPlan()
        let (client, adapter) = try await Self.connect(adapter: options.adapter)
        let peripheral = SimulatedSMPPeripheral(
            client: client, adapter: adapter, device: device.smpDevice(), options: peripheralOptions)
        guard start(.smp(peripheral)) else { return Self.nothingDone }
        let progress = Mutex(SMPProgress())
        do {
            try await peripheral.run { event in
                for translated in Event.translating(event) { onEvent(translated) }
                let isDone = progress.withLock { $0.record(event, limit: limit) }
                if isDone { peripheral.stop() }
            }
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
        let images = peripheral.device.map { SimulatedTarget.images(of: $0) } ?? []
        if peripheral.device != nil { onEvent(.slots(images)) }
        let activations = progress.withLock { $0.activations }
        return Report(
            activations: activations, images: images, smpUpload: SMPUploadReport(peripheral.tally ?? SMPUploadTally()))
    }

    /// The report of a run stopped before it registered anything.
    private static var nothingDone: Report { Report(activations: 0, images: [], smpUpload: nil) }

    /// Records the peripheral being run; `false` when ``stop()`` came first.
    private func start(_ peripheral: Running) -> Bool {
        running.withLock { running in
            guard case .notStarted = running else { return false }
            running = peripheral
            return true
        }
    }

    private static func connect(adapter name: String?) async throws(UpdateError) -> (BlueZClient, AdapterInfo) {
        do {
            let client = try await BlueZClient.connect()
            return (client, try await client.adapter(named: name))
        } catch {
            throw UpdateError(error, status: .unavailable)
        }
    }
}

/// What an nRF5 device has done: its activations, the images of the last one.
private struct DFUProgress {
    var activations = 0
    var images: [SimulatedTarget.Image] = []

    /// Counts `event`; returns whether the device should stop: it advertises again after `limit` activations.
    mutating func record(_ event: SimulatedPeripheralEvent, limit: Int?) -> Bool {
        switch event {
        case .activated(let activated):
            activations += 1
            images = SimulatedTarget.images(activated)
            return false
        case .registered: return limit.map { activations >= $0 } ?? false
        case .addressUnavailable, .connected, .disconnected, .written, .output, .log, .warning: return false
        }
    }
}

/// What the SMP device has done: its activations, and whether a central came back after the latest one.
private struct SMPProgress {
    var activations = 0
    /// A central connected after the latest activation (it checks and confirms the new image).
    var connectedSinceActivation = false

    /// Counts `event`; returns whether the device should stop: the central that came back after `limit`
    /// activations has left.
    mutating func record(_ event: SMPPeripheralEvent, limit: Int?) -> Bool {
        switch event {
        case .booted(let swapped, _, _):
            if swapped {
                activations += 1
                connectedSinceActivation = false
            }
            return false
        case .connected:
            connectedSinceActivation = true
            return false
        case .disconnected:
            return limit.map { activations >= $0 && connectedSinceActivation } ?? false
        case .registered, .exchange, .log, .warning: return false
        }
    }
}

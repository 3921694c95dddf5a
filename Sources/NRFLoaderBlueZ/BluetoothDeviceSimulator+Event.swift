import BlueZ
import DFUSimulator
public import NRFLoaderSimulator
import SimulatedPeripheral

extension BluetoothDeviceSimulator {
    /// Something the simulated device did or saw, in the order it happened.
    ///
    /// Texts (names, log lines) come from the central or the device: escape them before printing them on a terminal.
    public enum Event: Sendable, Equatable {
        /// The device is registered and advertising: a central can find and connect to it. Comes once at start and
        /// again after every reboot.
        case advertising(Advertisement)
        /// The device now wants an address (`AA:BB:…`) no powered adapter has, so it stays on this adapter.
        case addressUnavailable(wanted: String, adapter: String)
        /// A central (its address, or its BlueZ object's name) connected; the link's ATT MTU.
        case connected(central: String, mtu: Int)
        /// The central is gone (it disconnected, or the device dropped the link).
        case disconnected(central: String)
        /// nRF5: the central wrote these bytes to a control point or buttonless characteristic (`control point`,
        /// `buttonless`, …); packet writes are not reported.
        case written(characteristic: String, bytes: [UInt8])
        /// A line of the device's log: an answer or notification it sent, an SMP exchange, a boot, a fault, a
        /// central's protocol violation.
        case log(String)
        /// Something the device could not do as asked, in one line.
        case warning(String)
        /// nRF5: the device activated new firmware, one image per component.
        case activated([SimulatedTarget.Image])
        /// SMP: the device booted; `swapped` when MCUboot moved a new image into slot 0 (an activation).
        case booted(swapped: Bool, description: String)
        /// SMP: every slot as it is now, whole: after a disconnection, before a boot is reported, and when the run
        /// ends.
        case slots([SimulatedTarget.Image])

        /// The public events of a DFU peripheral's event.
        static func translating(_ event: SimulatedPeripheralEvent) -> [Event] {
            switch event {
            case .registered(let registration):
                let advertisement = registration.advertisement
                return [
                    .advertising(
                        Advertisement(
                            adapter: registration.adapter.interfaceName,
                            adapterAddress: registration.adapter.address?.description,
                            mode: advertisement.mode.description, name: advertisement.name,
                            serviceUUIDs: registration.serviceUUIDs))
                ]
            case .addressUnavailable(let wanted, let adapter):
                return [.addressUnavailable(wanted: wanted.description, adapter: adapter.interfaceName)]
            case .connected(let central, let mtu): return [.connected(central: Self.address(of: central), mtu: mtu)]
            case .disconnected(let central): return [.disconnected(central: Self.address(of: central))]
            case .written(let role, let bytes): return [.written(characteristic: "\(role)", bytes: bytes)]
            case .output(let output):
                switch output.output {
                case .writeAcknowledged, .connected: return []  // Noise, or reported by the peripheral's own event.
                default: return [.log("\(output)")]
                }
            case .log(let entry): return [.log("\(entry)")]
            case .warning(let text): return [.warning(text)]
            case .activated(let images): return [.activated(SimulatedTarget.images(images))]
            }
        }

        /// The public events of an SMP peripheral's event.
        static func translating(_ event: SMPPeripheralEvent) -> [Event] {
            switch event {
            case .registered(let adapter, let name, let services):
                return [
                    .advertising(
                        Advertisement(
                            adapter: adapter.interfaceName, adapterAddress: adapter.address?.description, mode: "smp",
                            name: name, serviceUUIDs: services))
                ]
            case .connected(let central, let mtu): return [.connected(central: Self.address(of: central), mtu: mtu)]
            case .disconnected(let central, let slots, _):
                return [.disconnected(central: Self.address(of: central)), .slots(Self.images(of: slots))]
            case .exchange(let line), .log(let line): return [.log(line)]
            case .booted(let swapped, let description, let slots):
                return [.slots(Self.images(of: slots)), .booted(swapped: swapped, description: description)]
            case .warning(let text): return [.warning(text)]
            }
        }

        private static func images(of slots: SMPSlots) -> [SimulatedTarget.Image] {
            SimulatedTarget.images(slots: slots.all)
        }

        /// `AA:BB:…` from a `Device1` path (`/org/bluez/hci1/dev_AA_BB_…`).
        private static func address(of central: String) -> String {
            let last = central.split(separator: "/").last.map(String.init) ?? central
            return last.hasPrefix("dev_") ? last.dropFirst(4).split(separator: "_").joined(separator: ":") : last
        }
    }

    /// How the device advertises, and where.
    public struct Advertisement: Sendable, Equatable {
        /// The adapter that serves it, such as `hci1`.
        public let adapter: String
        /// That adapter's address, `AA:BB:CC:DD:EE:FF`, if BlueZ gave one.
        public let adapterAddress: String?
        /// The firmware running: `application`, `secure bootloader`, `legacy bootloader`, or `smp`.
        public let mode: String
        /// The advertised name.
        public let name: String
        /// The advertised service UUIDs, upper case, 128-bit form.
        public let serviceUUIDs: [String]
    }

    /// What a simulated device did while it was served.
    public struct Report: Sendable {
        /// How many times the device activated new firmware (SMP: booted into a new image).
        public let activations: Int
        /// nRF5: the images of the last activation; SMP: every slot, whole, at the end.
        public let images: [SimulatedTarget.Image]
        /// SMP: what the device received of image uploads; `nil` for an nRF5 device.
        public let smpUpload: SMPUploadReport?
    }

    /// What an SMP device received of image uploads, counted from its answers: the evidence that a resumed upload
    /// sends nothing twice.
    public struct SMPUploadReport: Sendable, Equatable {
        /// Image upload requests the device handled.
        public let requests: Int
        /// Image data bytes written to the secondary slot (chunks at the offset the device expected).
        public let bytesWritten: Int
        /// First chunks answered with an offset past their own data: a resume, their data not written.
        public let resumeProbes: Int
        /// Chunks at another offset than the device expected, answered with the expected one and not written.
        public let staleChunks: Int
        /// The data bytes of those stale chunks.
        public let staleBytes: Int

        init(_ tally: SMPUploadTally) {
            requests = tally.requests
            bytesWritten = tally.bytesWritten
            resumeProbes = tally.resumeProbes
            staleChunks = tally.staleChunks
            staleBytes = tally.staleBytes
        }
    }
}

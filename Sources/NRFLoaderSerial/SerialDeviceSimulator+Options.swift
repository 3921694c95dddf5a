public import NRFLoaderSimulator
import SerialSimulator

#if canImport(Glibc)
    import Glibc
#endif

extension SerialDeviceSimulator {
    /// Faults of a simulated serial bootloader's line.
    public struct LineFaults: Sendable, Equatable {
        /// The device never answers.
        public var isMute = false
        /// Secure: noise on the line before each response.
        public var sendsGarbage = false
        /// The port disappears at this data frame (Secure: write object; legacy: data packet), counted from 1.
        public var vanishesAtDataFrame: Int?
        /// Legacy: the data packets (counted from 1) the device does not acknowledge, once each.
        public var droppedAcknowledgements: Set<Int> = []

        /// A line without faults.
        public init() {}

        var secure: SerialBootloader.LineFaults {
            var faults = SerialBootloader.LineFaults()
            faults.isMute = isMute
            faults.sendsGarbage = sendsGarbage
            faults.vanishAfterWrites = vanishesAtDataFrame
            return faults
        }

        var legacy: LegacySerialBootloader.LineFaults {
            var faults = LegacySerialBootloader.LineFaults()
            faults.isMute = isMute
            faults.droppedAcknowledgements = droppedAcknowledgements
            faults.vanishAfterData = vanishesAtDataFrame
            return faults
        }
    }

    /// The device as a USB device in a sysfs tree of its own, laid out as Linux lays out
    /// `/sys/class/tty/ttyACM0/device`: what `UpdateTarget.serial("auto")`, `nrfloader scan --serial` and the search
    /// for a device that came back under another path read, with `NRFLOADER_SYSFS` naming the tree.
    ///
    /// The tty entry is named as ``SerialDeviceSimulator/portPath``'s last component; the vendor and product ids are
    /// the kind's: 1915:521F for a Secure bootloader, 239A:0029 (Adafruit) for a legacy one, 2FE3:0001 (Zephyr CDC
    /// ACM) for an SMP device.
    public struct USBDevice: Sendable, Equatable {
        /// The tree's root, the stand-in for `/sys`.
        public var sysfsRoot: String
        /// Its USB serial number.
        public var serialNumber: String

        /// A device in the tree at `sysfsRoot`.
        ///
        /// - Parameters:
        ///   - sysfsRoot: The tree's root.
        ///   - serialNumber: Its USB serial number.
        public init(sysfsRoot: String, serialNumber: String = "C0DE00000001") {
            self.sysfsRoot = sysfsRoot
            self.serialNumber = serialNumber
        }

        func simulated(vendorID: UInt16, productID: UInt16, product: String) -> SimulatedUSBDevice {
            SimulatedUSBDevice(
                sysfsRoot: sysfsRoot, vendorID: vendorID, productID: productID, product: product,
                serialNumber: serialNumber)
        }
    }

    /// How the port comes back after each activation, as a USB CDC device's does when the device resets: it
    /// disappears after ``delay`` (the device hears nothing meanwhile) and returns 0.3 s later on a new
    /// pseudo-terminal.
    public struct Reenumeration: Sendable, Equatable {
        /// The name the port comes back under.
        public enum Naming: String, Sendable, CaseIterable {
            /// The same name (Linux gives a returning device the lowest free ttyACM number, usually its old one).
            case same
            /// The next number (`ttyACM0`, then `ttyACM1`): another device took the old name meanwhile.
            case next
        }

        /// The name it comes back under.
        public var naming: Naming
        /// The USB serial number it comes back with, `nil` for its own (another one plays another board).
        public var serialNumberAfterReset: String?
        /// From the activation to the port's disappearance.
        public var delay: Duration

        /// Re-enumeration under `naming`.
        ///
        /// - Parameters:
        ///   - naming: The name the port comes back under.
        ///   - serialNumberAfterReset: The USB serial number it comes back with, `nil` for its own.
        ///   - delay: From the activation to the port's disappearance, 0 or more.
        public init(naming: Naming, serialNumberAfterReset: String? = nil, delay: Duration = .milliseconds(100)) {
            self.naming = naming
            self.serialNumberAfterReset = serialNumberAfterReset
            self.delay = delay
        }

        var simulated: SerialReenumeration {
            SerialReenumeration(
                naming: naming == .same ? .same : .next, serialNumberAfterReset: serialNumberAfterReset, delay: delay)
        }
    }

    /// What a simulated serial device did while it was served.
    public struct Report: Sendable {
        /// How many times the device activated an image (nRF5: a part of the update; SMP: a boot that swapped a new
        /// image in).
        public let activations: Int
        /// Whether the port vanished because of ``LineFaults/vanishesAtDataFrame``.
        public let portVanished: Bool
        /// Every frame, one line each: `> hex` from the host, `< hex` to it (SMP: the decoded exchange).
        public let transcript: [String]
        /// Wire bytes received from the host.
        public let hostWireBytes: Int
        /// From the first byte received to the last activation, `nil` before an activation.
        public let firstByteToLastActivation: Duration?
        /// What the device holds: each image it activated (nRF5), or every slot, whole (SMP).
        public let images: [SimulatedTarget.Image]
    }
}

/// Runs `body` on a new detached thread: the serving loop blocks in `poll`, which must never happen on the Swift
/// cooperative pool (style.md §26).
func startServingThread(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ServingThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { context in
            guard let context else { return nil }
            Unmanaged<ServingThreadBody>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
    precondition(created == 0, "cannot start a thread: error \(created)")
    pthread_detach(thread)
}

/// The closure, passed through `pthread_create`'s context pointer.
private final class ServingThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

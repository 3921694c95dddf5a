/// The MCUmgr transport parameters a device reports (`os params`): `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` and
/// `_COUNT`.
public struct DeviceParameters: Sendable, Equatable {
    /// The size of one SMP buffer in bytes: the longest request the device takes.
    public let bufferSize: Int
    /// How many buffers the device has.
    public let bufferCount: Int
}

/// One thread of the device (`os taskstat`), as Zephyr's `os_mgmt_taskstat_read` reports it.
public struct DeviceTask: Sendable, Equatable {
    /// The thread's name (or its index or priority, as the device is built).
    public let name: String
    /// Its priority.
    public let priority: Int
    /// Its index in the walk (`tid`).
    public let id: Int
    /// Zephyr's `thread_state` bits.
    public let state: Int
    /// The stack size in 4-byte words, when the device reports stack use.
    public let stackSize: Int?
    /// The stack used, in 4-byte words, when reported.
    public let stackUsed: Int?
    /// The execution cycles, when reported (0 without `CONFIG_SCHED_THREAD_USAGE`).
    public let runtime: UInt64?
}

/// One memory pool (`os mpstat`), as mcumgr's OS group reports it: block size and counts.
public struct MemoryPool: Sendable, Equatable {
    /// The pool's name.
    public let name: String
    /// The block size in bytes.
    public let blockSize: Int
    /// How many blocks the pool has.
    public let blocks: Int
    /// How many are free.
    public let free: Int
    /// The fewest that were ever free.
    public let minimumFree: Int
}

/// The bootloader's mode (`enum mcuboot_mode`, MCUboot `boot_status.h`), as `os bootloader-info` reports it.
public enum BootloaderMode: Sendable, Equatable, CustomStringConvertible {
    /// 0: one slot, no update swap (updates come through serial recovery or a loader).
    case singleSlot
    /// 1: swap using a scratch area, with test and revert.
    case swapUsingScratch
    /// 2: overwrite-only: the new image replaces the old one, no revert.
    case overwriteOnly
    /// 3: swap using move, with test and revert.
    case swapUsingMove
    /// 4: direct-XIP: the newest valid slot runs in place, no revert.
    case directXIP
    /// 5: direct-XIP with revert.
    case directXIPWithRevert
    /// 6: RAM load: the image is copied to RAM and runs there.
    case ramLoad
    /// 7: a firmware loader image does the updates.
    case firmwareLoader
    /// Another number (`-1`: the application does not know its bootloader's mode).
    case other(Int)

    /// The mode of MCUboot's number.
    ///
    /// - Parameter number: `enum mcuboot_mode`'s value.
    public init(number: Int) {
        let known: [BootloaderMode] = [
            .singleSlot, .swapUsingScratch, .overwriteOnly, .swapUsingMove, .directXIP, .directXIPWithRevert,
            .ramLoad, .firmwareLoader,
        ]
        self = known.indices.contains(number) ? known[number] : .other(number)
    }

    /// `enum mcuboot_mode`'s value.
    public var number: Int {
        switch self {
        case .singleSlot: 0
        case .swapUsingScratch: 1
        case .overwriteOnly: 2
        case .swapUsingMove: 3
        case .directXIP: 4
        case .directXIPWithRevert: 5
        case .ramLoad: 6
        case .firmwareLoader: 7
        case .other(let number): number
        }
    }

    /// Whether MCUboot tests a new image and reverts it unless it is confirmed (swap modes, direct-XIP with revert).
    public var hasTestAndRevert: Bool {
        switch self {
        case .swapUsingScratch, .swapUsingMove, .directXIPWithRevert: true
        case .singleSlot, .overwriteOnly, .directXIP, .ramLoad, .firmwareLoader, .other: false
        }
    }

    /// `swap-using-scratch`, `direct-xip-with-revert`, …, or `mode N`.
    public var description: String {
        switch self {
        case .singleSlot: "single-slot"
        case .swapUsingScratch: "swap-using-scratch"
        case .overwriteOnly: "overwrite-only"
        case .swapUsingMove: "swap-using-move"
        case .directXIP: "direct-xip"
        case .directXIPWithRevert: "direct-xip-with-revert"
        case .ramLoad: "ram-load"
        case .firmwareLoader: "firmware-loader"
        case .other(let number): "mode \(number)"
        }
    }
}

/// What `os bootloader-info` found: the bootloader's name and, for MCUboot, its mode.
public struct BootloaderInfo: Sendable, Equatable {
    /// The bootloader's name, as the device gives it (`MCUboot`): the device's text, to escape before printing.
    public let name: String
    /// MCUboot's mode, `nil` for another bootloader or one that does not answer the mode query.
    public let mode: BootloaderMode?
    /// Whether MCUboot refuses downgrades (`no-downgrade`).
    public let refusesDowngrade: Bool
}

/// The output of a shell command run on the device (`shell exec`).
public struct ShellOutput: Sendable, Equatable {
    /// What the command printed: the device's text, to escape before printing.
    public let output: String
    /// The command's status (`shell_execute_cmd`'s return value: 0 for success, a negative errno otherwise).
    public let status: Int
}

/// One statistics group (`stat read`): its fields in the device's order.
public struct StatisticsGroup: Sendable, Equatable {
    /// The group's name.
    public let name: String
    /// Each field's name and value.
    public let fields: [Field]

    /// One field.
    public struct Field: Sendable, Equatable {
        /// Its name.
        public let name: String
        /// Its value.
        public let value: UInt64
    }
}

/// One management group a device has (`enum`).
public struct ManagementGroup: Sendable, Equatable {
    /// The group id (0 OS, 1 image, 2 statistics, 3 settings, 8 file system, 9 shell, 10 enumeration, 63 Zephyr
    /// basic, 64 and up the application's own).
    public let id: Int
    /// The group's name, when the device reports details (`CONFIG_MCUMGR_GRP_ENUM_DETAILS_NAME`).
    public let name: String?
    /// How many command handlers it has, when the device reports them.
    public let handlers: Int?
}

/// A hash or checksum of a file on the device (`fs hash`).
public struct FileHash: Sendable, Equatable {
    /// The type: `crc32` or `sha256` (Zephyr's), or another the device has.
    public let type: String
    /// How many bytes it covers.
    public let length: Int
    /// The value: the checksum's number, or the hash's bytes.
    public let value: Value

    /// A checksum is a number, a hash bytes.
    public enum Value: Sendable, Equatable {
        /// A number (IEEE CRC-32).
        case number(UInt64)
        /// Bytes (SHA-256).
        case bytes([UInt8])
    }
}

/// A hash or checksum type the device's file system group computes (`fs hash --types`).
public struct FileHashType: Sendable, Equatable {
    /// The type's name.
    public let name: String
    /// Whether its value is bytes (otherwise a number).
    public let isByteString: Bool
    /// The value's size in bytes.
    public let size: Int
}

/// The device's flash controller in virtual time: one operation at a time, first in, first out.
struct FlashTimeline: Sendable {
    var timing: FlashTiming
    /// When the last queued operation finishes.
    private(set) var idleAt: Duration = .zero

    init(timing: FlashTiming) {
        self.timing = timing
    }

    /// Queues erasing `pages` pages; returns when it finishes.
    mutating func erase(pages: Int, at now: Duration) -> Duration {
        idleAt = max(now, idleAt) + timing.pageErase * pages
        return idleAt
    }

    /// Queues writing `bytes` bytes (rounded up to words); returns when it finishes.
    mutating func write(bytes: Int, at now: Duration) -> Duration {
        idleAt = max(now, idleAt) + timing.wordWrite * ((bytes + 3) / 4)
        return idleAt
    }

    /// When everything queued by `now` has finished.
    func idle(at now: Duration) -> Duration { max(now, idleAt) }

    /// Pages needed for `bytes` bytes.
    func pages(for bytes: Int) -> Int { (bytes + timing.pageSize - 1) / timing.pageSize }
}

/// What a firmware component asks the device to do later.
enum DeviceAction: Equatable {
    case notify(CharacteristicRole, [UInt8])
    /// The device resets: it drops the link (if any) for `reason`, then boots per `boot`.
    case reset(DisconnectReason, BootRequest)
}

/// Where the device goes after a reset.
enum BootRequest: Equatable {
    /// Start the application if a valid one is installed, else stay in the bootloader.
    case applicationIfValid
    /// Enter the bootloader; `viaButtonless` says the application handed over (legacy peer data, address).
    case bootloader(viaButtonless: Bool)
}

/// The per-call scratchpad firmware components write their effects into.
struct DeviceContext {
    let now: Duration
    var flash: FlashTimeline
    var storage: DeviceStorage
    private(set) var actions: [(time: Duration, action: DeviceAction)] = []
    private(set) var entries: [(SimulatorLogEntry.Kind, String)] = []

    init(now: Duration, flash: FlashTimeline, storage: DeviceStorage) {
        self.now = now
        self.flash = flash
        self.storage = storage
    }

    mutating func notify(_ role: CharacteristicRole, _ bytes: [UInt8], at time: Duration? = nil) {
        actions.append((time ?? now, .notify(role, bytes)))
    }

    mutating func reset(_ reason: DisconnectReason, boot: BootRequest, at time: Duration? = nil) {
        actions.append((time ?? now, .reset(reason, boot)))
    }

    mutating func violation(_ message: String) {
        entries.append((.clientViolation, message))
    }

    mutating func note(_ message: String) {
        entries.append((.device, message))
    }
}

/// What survives a reset: the images in flash and the bootloader settings page.
struct DeviceStorage: Sendable {
    var images: [FirmwareType: [UInt8]] = [:]
    var activated: [FirmwareType: [UInt8]] = [:]
    var secureSettings: SecureSettings
    /// Name set through the buttonless Set Advertisement Name request, for the next bootloader start.
    var bootloaderName: String?
}

/// How a device's reset showed: ``SMPDevice/reset()`` returns once the link has dropped.
public enum ResetOutcome: Sendable, Equatable {
    /// The device answered the reset request, then dropped the link.
    case answered
    /// The link dropped before the device's answer arrived: Zephyr resets 250 ms after answering
    /// (`CONFIG_MCUMGR_GRP_OS_RESET_MS`), and the answer may not make it out first.
    case linkDroppedFirst
}

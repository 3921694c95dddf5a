package import DFUSimulator

/// How long a simulated device's flash takes to erase and write.
public enum SimulatedFlash: String, Sendable, CaseIterable {
    /// nRF52 maxima: 85 ms per 4 KiB page erase, 41 µs per word (an SMP device takes MCUboot's swap time at boot).
    case nrf52
    /// nRF51: 22 ms per 1 KiB page erase, 48 µs per word.
    case nrf51
    /// No flash time at all: the link and the protocol alone (benchmarks; an SMP device swaps at once).
    case instant

    /// The simulator's timing, keeping the device's page size for ``instant``.
    package func timing(pageSize: Int) -> FlashTiming {
        switch self {
        case .nrf52: .nRF52
        case .nrf51: .nRF51
        case .instant: FlashTiming(pageSize: pageSize, pageErase: .zero, wordWrite: .zero)
        }
    }
}

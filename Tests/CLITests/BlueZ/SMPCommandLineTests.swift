import Foundation
import TestSupport
import Testing

/// The SMP-over-BlueZ command lines that are refused before any Bluetooth work: each a one-line error, exit 64.
@Suite("SMP over BlueZ: refused command lines")
struct SMPCommandLineTests {
    static let image = TestPaths.repositoryRoot.path + "/Tests/Data/mcuboot/ed25519.bin"

    @Test(
        "each refusal is one line naming the problem",
        arguments: [
            (
                ["upload", "--name", "Zephyr.*", "--all", image],
                "Error: --name REGEX --all with a signed MCUboot image is not supported; give the devices with "
                    + "--target or --targets-from"
            ),
            (
                ["simulate", "--kind", "smp", "--sim-fault", "corrupt-packet@3"],
                "Error: --sim-fault 'corrupt-packet@3' is not simulated for --kind smp (supported: drop-packet, "
                    + "drop-notification, duplicate-notification, disconnect, reboot, stall, respond, mtu)"
            ),
            (["simulate", "--kind", "smp", "--sd-id", "0x0101"], "Error: --sd-id does not apply to --kind smp"),
            (["simulate", "--kind", "smp", "--smp-slot-size", "100"], "Error: --smp-slot-size must be at least 4096"),
        ])
    func refused(arguments: [String], message: String) {
        // No bus at all: nothing may reach for BlueZ before the refusal.
        let result = ProcessRunner().run(
            TestPaths.nrfloader, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix(message + "\n"), "\(result.stderrText)")
    }
}

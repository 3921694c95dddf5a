import NRFLoaderBlueZ
import NRFLoaderKit
import Testing

/// The Bluetooth targets as a library user makes them: what is decided before any D-Bus call.
///
/// Everything after that talks to BlueZ on the system bus, which this process cannot point at the test rig's
/// private bus; the command line's BlueZ tests (CLITests/BlueZ) run it against bluezoo.
@Suite struct BluetoothTargetTests {
    @Test("an address that is not six hex pairs is a usage error before any radio work, naming the text")
    func badAddress() {
        for text in ["C0:DE", "C0:DE:00:00:00:0G", "DfuTarg"] {
            #expect {
                _ = try UpdateTarget.bluetooth(address: text)
            } throws: { error in
                guard let error = error as? UpdateError else { return false }
                return error.exitStatus == .usage && error.message.contains("'\(text)'") && !error.deviceWasReached
            }
        }
    }

    @Test("a target is described by its address or its quoted name; its lane is its adapter, or the default one")
    func descriptionAndLane() throws {
        let byAddress = try UpdateTarget.bluetooth(address: "C0:DE:00:00:00:01")
        #expect(byAddress.description == "C0:DE:00:00:00:01")
        #expect(byAddress.lane == "default")
        var options = BluetoothOptions()
        options.adapter = "hci1"
        #expect(try UpdateTarget.bluetooth(address: "C0:DE:00:00:00:02", options: options).lane == "hci1")
        let byName = UpdateTarget.bluetooth(name: "DfuTarg", options: options)
        #expect(byName.description == "'DfuTarg'")
        #expect(byName.lane == "hci1")
    }
}

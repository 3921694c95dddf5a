import Foundation
import TestSupport
import Testing

/// A third-party SMP client drives `nrfloader simulate-serial --protocol smp` through a whole update.
///
/// The client is smpmgr 0.19.1 on smpclient 7.3.0, pinned in Tests/Rig/smp-requirements.txt and installed by
/// Tests/Rig/setup.sh. The session is `Tests/Data/smp-serial/smpmgr-session.sh`, whose committed output is
/// `smpmgr-transcript.txt` there.
@Suite struct SMPThirdPartyTests {
    @Test("smpmgr uploads, tests, resets and confirms the catalog's MCUboot image on simulate-serial --protocol smp")
    func smpmgrOverSerial() throws {
        let root = TestPaths.repositoryRoot.path
        let smpmgr = root + "/.build-rig/smp-venv/bin/smpmgr"
        try #require(FileManager.default.isExecutableFile(atPath: smpmgr), "no smpmgr: run sh Tests/Rig/setup.sh")
        let image = root + "/Resources/firmware/selftest-nrf52840dk-mcuboot.bin"
        let session = ProcessRunner().run(
            "/bin/bash", [root + "/Tests/Data/smp-serial/smpmgr-session.sh", smpmgr, TestPaths.nrfloader, image])
        #expect(session.status == 0, "\(session.stderrText)")
        let transcript = session.stdoutText
        // The state after each step, as smpmgr printed it: slot 1 holds the upload; after the test and the reset,
        // slot 0 runs it unconfirmed; after the confirm it is confirmed.
        let states = transcript.components(separatedBy: "$ smpmgr ").filter {
            $0.hasPrefix("--port TTY --timeout 5 image state-read")
        }
        try #require(states.count == 3, "\(transcript)")
        func slot(_ state: String, _ number: Int) -> String {
            state.components(separatedBy: "ImageState(").first { $0.contains("slot=\(number),") } ?? ""
        }
        let hash = "2D933845D2E1D376DDF580697FDBEAE6CC426FF98904C1426A79D4D65C531439"
        #expect(slot(states[0], 1).contains(hash) && slot(states[0], 1).contains("pending=False"))
        #expect(slot(states[1], 0).contains(hash) && slot(states[1], 0).contains("confirmed=False"))
        #expect(slot(states[1], 0).contains("active=True"))
        #expect(slot(states[2], 0).contains(hash) && slot(states[2], 0).contains("confirmed=True"))
        #expect(transcript.contains("# simulate-serial: simulate-serial: 1 activation(s)\n"))
        #expect(transcript.hasSuffix("# slot0.bin begins with the image, byte for byte\n"))
    }
}

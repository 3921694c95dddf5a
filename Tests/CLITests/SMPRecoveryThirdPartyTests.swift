import Foundation
import TestSupport
import Testing

/// A third-party SMP client drives `nrfloader simulate-serial --protocol smp --smp-recovery` (MCUboot's serial
/// recovery) through a recovery: state read, upload, a refused state write, reset, and the application's state read.
///
/// The client is smpmgr 0.19.1 on smpclient 7.3.0, pinned in Tests/Rig/smp-requirements.txt and installed by
/// Tests/Rig/setup-smp.sh. The session is `Tests/Data/smp-recovery/smpmgr-session.sh`; its committed output,
/// `smpmgr-transcript.txt` there, is what this test expects, byte for byte.
@Suite struct SMPRecoveryThirdPartyTests {
    @Test("smpmgr to MCUboot's serial recovery: upload to slot 0, rc 8 for state writes, a reset boots it")
    func smpmgrAgainstRecovery() throws {
        let root = TestPaths.repositoryRoot.path
        let smpmgr = root + "/.build-rig/smp-venv/bin/smpmgr"
        try #require(FileManager.default.isExecutableFile(atPath: smpmgr), "no smpmgr: run sh Tests/Rig/setup-smp.sh")
        let session = ProcessRunner().run(
            "/bin/bash",
            [
                root + "/Tests/Data/smp-recovery/smpmgr-session.sh", smpmgr, TestPaths.nrfloader,
                root + "/Tests/Data/mcuboot/ed25519.bin",
            ])
        #expect(session.status == 0, "\(session.stderrText)")
        let expected = try String(
            contentsOfFile: root + "/Tests/Data/smp-recovery/smpmgr-transcript.txt", encoding: .utf8)
        #expect(session.stdoutText == expected)
        #expect(expected.contains("rc=<MGMT_ERR.ENOTSUP: 8>"))
        #expect(expected.contains("    active=True,\n"))
        #expect(expected.hasSuffix("# slot0.bin begins with the image, byte for byte\n"))
    }
}

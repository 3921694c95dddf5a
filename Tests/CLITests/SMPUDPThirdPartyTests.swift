import Foundation
import TestSupport
import Testing

/// A third-party SMP client drives `nrfloader simulate-udp` through a whole update and the other groups it has.
///
/// The client is smpmgr 0.19.1 on smpclient 7.3.0 (`--ip`, port 1337), pinned in Tests/Rig/smp-requirements.txt and
/// installed by Tests/Rig/setup-smp.sh. The session is `Tests/Data/smp-udp/smpmgr-session.sh`; its committed output,
/// `smpmgr-transcript.txt` there, is what this test expects, byte for byte.
@Suite struct SMPUDPThirdPartyTests {
    @Test("smpmgr over UDP: update, echo, file upload, size, hash and download, statistics, enum, shell")
    func smpmgrOverUDP() throws {
        let root = TestPaths.repositoryRoot.path
        let smpmgr = root + "/.build-rig/smp-venv/bin/smpmgr"
        try #require(FileManager.default.isExecutableFile(atPath: smpmgr), "no smpmgr: run sh Tests/Rig/setup-smp.sh")
        let image = root + "/Resources/firmware/selftest-nrf52840dk-mcuboot.bin"
        let session = ProcessRunner().run(
            "/bin/bash", [root + "/Tests/Data/smp-udp/smpmgr-session.sh", smpmgr, TestPaths.nrfloader, image])
        #expect(session.status == 0, "\(session.stderrText)")
        let expected = try String(contentsOfFile: root + "/Tests/Data/smp-udp/smpmgr-transcript.txt", encoding: .utf8)
        #expect(session.stdoutText == expected)
        // What the transcript shows, in words: the image runs confirmed after the test and the reset; the file came
        // back whole; smpmgr refuses Zephyr's `stat list` answer for its "rc": 0.
        #expect(expected.contains("# the file downloaded is the file uploaded, byte for byte\n"))
        #expect(expected.contains("Could not be parsed as ListOfGroupsResponse because 1"))
        #expect(expected.hasSuffix("# slot0.bin begins with the image, byte for byte\n"))
    }
}

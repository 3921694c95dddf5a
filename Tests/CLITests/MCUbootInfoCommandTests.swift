import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

@Suite struct MCUbootInfoCommandTests {
    @Test(
        "info --json agrees with imgtool dumpinfo's transcript on every committed image",
        arguments: [
            ("mcuboot/hash-only.bin", "mcuboot/hash-only"), ("mcuboot/ecdsa-p256.bin", "mcuboot/ecdsa-p256"),
            ("mcuboot/ed25519.bin", "mcuboot/ed25519"),
            ("mcuboot/ecdsa-p256-confirm.bin", "mcuboot/ecdsa-p256-confirm"),
            // The catalog's MCUboot image lives with the other firmware; its transcript is with the rest.
            ("../../Resources/firmware/selftest-nrf52840dk-mcuboot.bin", "mcuboot/selftest-nrf52840dk-mcuboot"),
            ("smp-ble/ecdsa-p256-130k.bin", "smp-ble/ecdsa-p256-130k"),
            ("mcuboot/ncs/app/app_update.bin", "mcuboot/ncs/app_update"),
            ("mcuboot/ncs/net/net_core_app_update.bin", "mcuboot/ncs/net_core_app_update"),
        ])
    func agreesWithImgtool(image: String, transcriptName: String) throws {
        let data = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data").path
        let result = nrfloader(["info", "\(data)/\(image)", "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let transcript = try Data(contentsOf: URL(fileURLWithPath: "\(data)/\(transcriptName).dumpinfo.json"))
        let theirs = try #require(try JSONSerialization.jsonObject(with: transcript) as? [String: Any])
        #expect(ours["kind"] as? String == "mcuboot")
        let ourHeader = try #require(ours["header"] as? [String: Any])
        let theirHeader = try #require(theirs["header"] as? [String: Any])
        for key in ["magic", "load_addr", "hdr_size", "protected_tlv_size", "img_size", "flags"] {
            #expect(ourHeader[key] as? Int == theirHeader[key] as? Int, "\(key)")
        }
        #expect(ourHeader["version"] as? String == theirHeader["version"] as? String)
        let ourArea = try #require(ours["tlv_area"] as? [String: Any])
        let theirArea = try #require(theirs["tlv_area"] as? [String: Any])
        for key in ["tlvs", "tlvs_prot"] {
            let ourEntries = try #require(ourArea[key] as? [[String: Any]])
            let theirEntries = try #require(theirArea[key] as? [[String: Any]])
            #expect(ourEntries.count == theirEntries.count)
            for (our, their) in zip(ourEntries, theirEntries) {
                #expect(our["type"] as? Int == their["type"] as? Int)
                #expect(our["type_name"] as? String == their["type_name"] as? String)
                #expect(our["len"] as? Int == their["len"] as? Int)
                #expect(our["data"] as? String == their["data"] as? String)
            }
        }
        let theirTrailer = try #require(theirs["trailer"] as? [String: Any])
        if theirTrailer.isEmpty {
            #expect(ours["trailer"] is NSNull)
        } else {
            let ourTrailer = try #require(ours["trailer"] as? [String: Any])
            for key in ["image_ok", "copy_done", "swap_info", "swap_size"] {
                #expect(ourTrailer[key] as? Int == theirTrailer[key] as? Int, "\(key)")
            }
            #expect(ourTrailer["magic"] as? String == theirTrailer["magic"] as? String)
        }
        let hash = try #require(ours["sha256_tlv"] as? [String: Any])
        #expect(hash["valid"] as? Bool == true)
    }

    @Test("every committed signed MCUboot image has an imgtool dumpinfo transcript that the test above compares")
    func everyImageHasATranscript() throws {
        let root = TestPaths.repositoryRoot
        let compared: Set<String> = [
            "Tests/Data/mcuboot/hash-only.bin", "Tests/Data/mcuboot/ecdsa-p256.bin", "Tests/Data/mcuboot/ed25519.bin",
            "Tests/Data/mcuboot/ecdsa-p256-confirm.bin", "Resources/firmware/selftest-nrf52840dk-mcuboot.bin",
            "Tests/Data/smp-ble/ecdsa-p256-130k.bin", "Tests/Data/mcuboot/ncs/app/app_update.bin",
            "Tests/Data/mcuboot/ncs/net/net_core_app_update.bin",
        ]
        var found: Set<String> = []
        for folder in ["Tests/Data", "Resources/firmware"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".bin") else { continue }
                let path = folder + "/" + relative
                let handle = try FileHandle(forReadingFrom: root.appendingPathComponent(path))
                defer { try? handle.close() }
                if try handle.read(upToCount: 4) == Data([0x3D, 0xB8, 0xF3, 0x96]) { found.insert(path) }
            }
        }
        #expect(found == compared)
    }

    @Test("--verify-key checks the signature; a wrong key exits 65 with one line naming image and key")
    func verifyKey() {
        let good = nrfloader(["info", "\(mcuboot)/ed25519.bin", "--verify-key", "\(mcuboot)/ed25519.pub.pem"])
        #expect(good.status == 0, "\(good.stderrText)")
        #expect(
            good.stdoutText.contains("signature:          ed25519 signature verifies with '\(mcuboot)/ed25519.pub.pem'")
        )
        let wrong = nrfloader(["info", "\(mcuboot)/ecdsa-p256.bin", "--verify-key", "\(mcuboot)/ecdsa-p256-other.pem"])
        #expect(wrong.status == 65)
        #expect(
            wrong.stderrText
                == "Error: \(mcuboot)/ecdsa-p256.bin: KEYHASH TLV names another key than '\(mcuboot)/ecdsa-p256-other.pem'\n"
        )
    }

    @Test("a damaged image is described, then exits 65 naming the hash mismatch")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(mcuboot)/hash-only.bin")))
        bytes[0x400] ^= 0xFF
        let path = directory.path + "/damaged.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = nrfloader(["info", path])
        #expect(result.status == 65)
        #expect(result.stdoutText.contains("version:            0.1.0+0"))
        #expect(result.stderrText.hasPrefix("Error: \(path): SHA256 TLV is c48297b4"))
    }
}

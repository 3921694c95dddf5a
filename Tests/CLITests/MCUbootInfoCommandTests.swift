import Foundation
import TestSupport
import Testing

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

@Suite struct MCUbootInfoCommandTests {
    @Test(
        "info --json agrees with imgtool dumpinfo's transcript on every committed image",
        arguments: ["hash-only", "ecdsa-p256", "ed25519", "ecdsa-p256-confirm", "selftest-nrf52840dk-mcuboot"])
    func agreesWithImgtool(name: String) throws {
        // The catalog's MCUboot image lives with the other firmware; its transcript is here with the rest.
        let catalogImage = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware/\(name).bin").path
        let path = FileManager.default.fileExists(atPath: catalogImage) ? catalogImage : "\(mcuboot)/\(name).bin"
        let result = nrfloader(["info", path, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let transcript = try Data(contentsOf: URL(fileURLWithPath: "\(mcuboot)/\(name).dumpinfo.json"))
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

import DBus
import Testing

@Suite("DBusType and DBusMatchRule")
struct ValueTypeTests {
    @Test(
        "parses and prints signatures",
        arguments: [
            "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v", "ay", "as", "a{sv}",
            "a{oa{sa{sv}}}", "(ias)", "a(oy)", "aay",
        ])
    func signature(text: String) throws {
        #expect(try #require(DBusType(signature: text)).signature == text)
    }

    @Test("rejects malformed signatures", arguments: ["", "a", "{sv}", "a{vs}", "()", "(s", "ss", "z", "a{s}"])
    func badSignature(text: String) {
        #expect(DBusType(signature: text) == nil)
    }

    @Test("splits a body signature into complete types")
    func bodySignature() {
        #expect(
            DBusType.types(inSignature: "oa{sv}s") == [
                .objectPath, .dictionary(key: .string, value: .variant), .string,
            ])
        #expect(DBusType.types(inSignature: "") == [])
    }

    @Test("writes match rules in the bus's syntax, quoting apostrophes")
    func matchRule() {
        let rule = DBusMatchRule(sender: "org.bluez", pathNamespace: "/org/bluez", member: "PropertiesChanged")
        #expect(
            rule.description
                == "type='signal',sender='org.bluez',path_namespace='/org/bluez',member='PropertiesChanged'")
        #expect(DBusMatchRule(arg0: "it's").description == #"type='signal',arg0='it'\''s'"#)
    }

    @Test("builds a{sv} with keys in order")
    func propertyDictionary() {
        let value = DBusValue.propertyDictionary(["b": .bool(true), "a": .uint16(1)])
        #expect(
            value
                == .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(.string("a"), .variant(.uint16(1))),
                        DBusDictionaryEntry(.string("b"), .variant(.bool(true))),
                    ]))
        #expect(value.type.signature == "a{sv}")
    }
}

import CDBus

/// Appends validated ``DBusValue``s through a `DBusMessageIter` (swift-stack.md §1, pitfall 3: no variadics).
enum MessageWriter {
    /// Appends one value; the value has passed ``ValueValidator``, so only memory exhaustion can fail here.
    static func append(_ value: DBusValue, to iterator: UnsafeMutablePointer<DBusMessageIter>) {
        switch value {
        case .byte(let byte): appendBasic(iterator, CDBUS_TYPE_BYTE, byte)
        case .bool(let flag): appendBasic(iterator, CDBUS_TYPE_BOOLEAN, dbus_bool_t(flag ? 1 : 0))
        case .int16(let number): appendBasic(iterator, CDBUS_TYPE_INT16, number)
        case .uint16(let number): appendBasic(iterator, CDBUS_TYPE_UINT16, number)
        case .int32(let number): appendBasic(iterator, CDBUS_TYPE_INT32, number)
        case .uint32(let number): appendBasic(iterator, CDBUS_TYPE_UINT32, number)
        case .int64(let number): appendBasic(iterator, CDBUS_TYPE_INT64, number)
        case .uint64(let number): appendBasic(iterator, CDBUS_TYPE_UINT64, number)
        case .double(let number): appendBasic(iterator, CDBUS_TYPE_DOUBLE, number)
        case .unixFD(let descriptor): appendBasic(iterator, CDBUS_TYPE_UNIX_FD, descriptor)
        case .string(let text): appendText(iterator, CDBUS_TYPE_STRING, text)
        case .objectPath(let text): appendText(iterator, CDBUS_TYPE_OBJECT_PATH, text)
        case .signature(let text): appendText(iterator, CDBUS_TYPE_SIGNATURE, text)
        case .bytes(let bytes):
            appendByteArray(iterator, bytes)
        case .array(.byte, let elements):
            appendByteArray(iterator, elements.compactMap { if case .byte(let byte) = $0 { byte } else { nil } })
        case .array(let element, let elements):
            withContainer(iterator, CDBUS_TYPE_ARRAY, element.signature) { inner in
                for item in elements { append(item, to: inner) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.signature + valueType.signature + "}"
            withContainer(iterator, CDBUS_TYPE_ARRAY, entrySignature) { array in
                for entry in entries {
                    withContainer(array, CDBUS_TYPE_DICT_ENTRY, nil) { pair in
                        append(entry.key, to: pair)
                        append(entry.value, to: pair)
                    }
                }
            }
        case .structure(let fields):
            withContainer(iterator, CDBUS_TYPE_STRUCT, nil) { inner in
                for field in fields { append(field, to: inner) }
            }
        case .variant(let inner):
            withContainer(iterator, CDBUS_TYPE_VARIANT, inner.type.signature) { contained in
                append(inner, to: contained)
            }
        }
    }

    private static func appendBasic<T>(_ iterator: UnsafeMutablePointer<DBusMessageIter>, _ type: Int32, _ value: T) {
        var copy = value
        let appended = withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(iterator, type, $0) }
        precondition(appended != 0, "libdbus is out of memory appending a value")
    }

    /// STRING, OBJECT_PATH and SIGNATURE are passed as a pointer to a `const char *`.
    private static func appendText(_ iterator: UnsafeMutablePointer<DBusMessageIter>, _ type: Int32, _ text: String) {
        text.withCString { characters in
            var pointer: UnsafePointer<CChar>? = characters
            let appended = withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(iterator, type, $0) }
            precondition(appended != 0, "libdbus is out of memory appending a string")
        }
    }

    /// `ay` in one copy; libdbus needs a non-NULL pointer even for zero elements.
    private static func appendByteArray(_ iterator: UnsafeMutablePointer<DBusMessageIter>, _ bytes: [UInt8]) {
        withContainer(iterator, CDBUS_TYPE_ARRAY, "y") { inner in
            var placeholder: UInt8 = 0
            withUnsafeMutablePointer(to: &placeholder) { emptyBase in
                bytes.withUnsafeBufferPointer { buffer in
                    var base: UnsafePointer<UInt8>? = buffer.baseAddress ?? UnsafePointer(emptyBase)
                    let appended = withUnsafePointer(to: &base) {
                        dbus_message_iter_append_fixed_array(inner, CDBUS_TYPE_BYTE, $0, Int32(buffer.count))
                    }
                    precondition(appended != 0, "libdbus is out of memory appending \(buffer.count) bytes")
                }
            }
        }
    }

    private static func withContainer(
        _ iterator: UnsafeMutablePointer<DBusMessageIter>,
        _ type: Int32,
        _ signature: String?,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) -> Void
    ) {
        let inner = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { inner.deallocate() }
        let opened: dbus_bool_t =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(iterator, type, $0, inner) }
            } else {
                dbus_message_iter_open_container(iterator, type, nil, inner)
            }
        precondition(opened != 0, "libdbus is out of memory opening a container")
        body(inner)
        precondition(dbus_message_iter_close_container(iterator, inner) != 0, "libdbus cannot close a container")
    }
}

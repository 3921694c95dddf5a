import CDBus

/// Reads a message's arguments through a `DBusMessageIter` into ``DBusValue``s.
///
/// Unix fds come out duplicated by libdbus (`dbus_message_iter_get_basic` dups them): the caller owns them.
enum MessageReader {
    /// Reads from the iterator's position to the end of its container.
    static func readAll(_ iterator: UnsafeMutablePointer<DBusMessageIter>) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(iterator) != CDBUS_TYPE_INVALID {
            values.append(read(iterator))
            dbus_message_iter_next(iterator)
        }
        return values
    }

    /// Reads the value at the iterator's position.
    static func read(_ iterator: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(iterator)
        switch type {
        case CDBUS_TYPE_BYTE: return .byte(basic(iterator, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .bool(basic(iterator, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(basic(iterator, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(basic(iterator, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(basic(iterator, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(basic(iterator, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(basic(iterator, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(basic(iterator, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(basic(iterator, Double(0)))
        case CDBUS_TYPE_UNIX_FD: return .unixFD(basic(iterator, Int32(-1)))
        case CDBUS_TYPE_STRING: return .string(text(iterator))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(text(iterator))
        case CDBUS_TYPE_SIGNATURE: return .signature(text(iterator))
        case CDBUS_TYPE_ARRAY: return array(iterator)
        case CDBUS_TYPE_STRUCT:
            return .structure(withRecursion(iterator) { readAll($0) })
        case CDBUS_TYPE_VARIANT:
            return .variant(withRecursion(iterator) { read($0) })
        default:
            preconditionFailure("libdbus reported argument type \(type), which D-Bus does not define")
        }
    }

    private static func basic<T>(_ iterator: UnsafeMutablePointer<DBusMessageIter>, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(iterator, $0) }
        return value
    }

    private static func text(_ iterator: UnsafeMutablePointer<DBusMessageIter>) -> String {
        var pointer: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(iterator, $0) }
        return pointer.map { String(cString: $0) } ?? ""
    }

    /// The complete type of the argument at the iterator, from its signature.
    private static func currentType(_ iterator: UnsafeMutablePointer<DBusMessageIter>) -> DBusType {
        guard let characters = dbus_message_iter_get_signature(iterator) else {
            preconditionFailure("libdbus is out of memory reading a signature")
        }
        defer { dbus_free(characters) }
        let signature = String(cString: characters)
        guard let type = DBusType(signature: signature) else {
            preconditionFailure("libdbus returned signature '\(signature)', which is not one complete type")
        }
        return type
    }

    private static func array(_ iterator: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue {
        let type = currentType(iterator)
        switch type {
        case .array(.byte):
            return .bytes(
                withRecursion(iterator) { inner in
                    var base: UnsafePointer<UInt8>?
                    var count: Int32 = 0
                    withUnsafeMutablePointer(to: &base) { dbus_message_iter_get_fixed_array(inner, $0, &count) }
                    guard let base, count > 0 else { return [] }
                    return Array(UnsafeBufferPointer(start: base, count: Int(count)))
                })
        case .array(let element):
            return .array(element, withRecursion(iterator) { readAll($0) })
        case .dictionary(let key, let value):
            let entries = withRecursion(iterator) { array in
                var entries: [DBusDictionaryEntry] = []
                while dbus_message_iter_get_arg_type(array) == CDBUS_TYPE_DICT_ENTRY {
                    let pair = withRecursion(array) { readAll($0) }
                    precondition(pair.count == 2, "a dictionary entry from libdbus has \(pair.count) fields")
                    entries.append(DBusDictionaryEntry(pair[0], pair[1]))
                    dbus_message_iter_next(array)
                }
                return entries
            }
            return .dictionary(key: key, value: value, entries)
        default:
            preconditionFailure("libdbus reported an array whose signature is '\(type)'")
        }
    }

    private static func withRecursion<T>(
        _ iterator: UnsafeMutablePointer<DBusMessageIter>,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) -> T
    ) -> T {
        let inner = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { inner.deallocate() }
        dbus_message_iter_recurse(iterator, inner)
        return body(inner)
    }
}

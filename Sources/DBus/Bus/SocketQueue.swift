import CDBus

/// Bytes still queued for sending on a socket (`SIOCOUTQ`), or -1 with `errno` set.
///
/// The BlueZ transport's acquired sockets (AcquireWrite) need it before a control-point write, and `ioctl` is
/// variadic, which Swift cannot call; the C shim lives in this target so that it alone sees C types.
package func socketUnsentBytes(_ descriptor: Int32) -> Int32 {
    cdbus_socket_unsent_bytes(descriptor)
}

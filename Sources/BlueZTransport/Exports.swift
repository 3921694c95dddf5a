// The central's users (the CLI, benchmarks, tests) also need BlueZ's object model and the bus types: re-exported,
// so that importing the transport is enough. Only the DBus target sees libdbus's C types.
@_exported public import BlueZ
@_exported public import DBus

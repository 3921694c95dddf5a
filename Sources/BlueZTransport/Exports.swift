// The central's users in this package (the CLI, benchmarks, tests) import BlueZ and DBus themselves when they need
// BlueZ's object model or the bus types (a `package` import cannot be re-exported). Only the DBus target sees
// libdbus's C types.
import BlueZ
import DBus

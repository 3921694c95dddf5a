// Placeholder: the simulated DFU target served as a BlueZ GATT application (issue 5, item 5).

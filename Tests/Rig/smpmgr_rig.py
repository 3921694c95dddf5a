"""Runs smpmgr 0.19.1 (Tests/Rig/smp-requirements.txt) with bleak held to one BlueZ adapter.

bleak 3.1.0 takes "the first powered central adapter" from a Python set (bleak/backends/bluezdbus/manager.py,
get_default_adapter), so on a rig with two adapters it scans on either, at random per process, and smpclient 7.3.0
gives it no way to choose. The adapter comes from SMPMGR_ADAPTER (default hci0); everything else is smpmgr's own
command line, unchanged.

Usage: .build-rig/smp-venv/bin/python Tests/Rig/smpmgr_rig.py --ble C0:DE:00:00:00:02 image state-read
"""

import os
import re
import sys

from bleak.backends.bluezdbus import manager

_ADAPTER = "/org/bluez/" + os.environ.get("SMPMGR_ADAPTER", "hci0")


def _default_adapter(self) -> str:
    return _ADAPTER


manager.BlueZManager.get_default_adapter = _default_adapter

from smpmgr.main import app  # noqa: E402  (after the patch, as smpmgr's own entry point does it)

if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\.pyw|\.exe)?$", "", sys.argv[0])
    sys.exit(app())

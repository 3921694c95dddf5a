#!/usr/bin/env bash
# Installs what the tests need and runs every test: format lint, module rules, and `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
# stage NAME: a header with the minutes:seconds since the script started, so a log shows where time goes.
stage() { printf '== %s (at %d:%02d)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
bash scripts/install-deps.sh --test
# The BlueZ stand-in (bluezoo) and its pinned Python packages, in .build-rig/venv.
sh Tests/Rig/setup.sh
# smpmgr/smpclient, the third-party SMP client of issue 20, in .build-rig/smp-venv.
sh Tests/Rig/setup-smp.sh

stage "swift format lint"
swift format lint --strict --configuration .swift-format --recursive --parallel Package.swift Sources Tests Benchmarks \
    Examples/Package.swift Examples/Sources
# The library's public modules: every public declaration documented (issue 21).
swift format lint --strict --configuration .swift-format-library --recursive --parallel Sources/NRFLoaderKit \
    Sources/NRFLoaderSimulator Sources/NRFLoaderSerial Sources/NRFLoaderBlueZ Sources/NRFLoaderStation

stage "module rules"
bash scripts/check-imports.sh
python3 scripts/check-flag-names.py

stage "swift test"
swift build --build-tests
# The BlueZ rig suites run on their own, one test at a time. Run in parallel with the command-line suites, whose tests
# wait for child processes synchronously, both threads of the cooperative pool (two cores) can be held for minutes,
# and nothing async in the process runs meanwhile: a served peripheral's registration stalled, and a simulated
# bootloader left waiting for its central past its 120-s inactivity timeout reset and advertised again.
rig_suites='^((BlueZTransportTests|SMPBlueZTests|SimulatedPeripheralTests|NRFLoaderBlueZTests|BlueZTests)\.'
rig_suites+='|CLITests\.(BlueZ566QuirkTests|FleetUploadOverBlueZTests|OutsideTextEscapingTests|PackageOverBlueZTests'
rig_suites+='|SMPCommandLineTests|SMPGroupVerbsOverBlueZTests|SMPManagerTests|SMPOverBlueZTests|ScanCommandTests'
rig_suites+='|ServeOverBlueZTests|SimulateTests|UploadOverBlueZTests)[./])'
for suite in $(grep -ho 'struct [A-Za-z0-9]*Tests\b' Tests/CLITests/BlueZ/*.swift | cut -d' ' -f2); do
    [[ $rig_suites == *"$suite"* ]] || { echo "scripts/test.sh: add $suite (Tests/CLITests/BlueZ) to rig_suites" >&2; exit 1; }
done
swift test --skip-build --skip "$rig_suites"
stage "swift test: the BlueZ rig suites, one test at a time"
swift test --skip-build --no-parallel --filter "$rig_suites"

# The library (issue 21): DocC for every module of the library products, warnings as errors; the examples built
# against this checkout by path and run (the Getting Started article's program among them).
stage "documentation (scripts/docs-check.sh)"
bash scripts/docs-check.sh

stage "examples (scripts/examples.sh)"
bash scripts/examples.sh

# The command line is a client of the public library only: its sources, copied unchanged into a package of their own
# that depends on this one by path, build, and the binary prints what this package's binary prints.
stage "command line as a client (scripts/cli-as-client.sh)"
bash scripts/cli-as-client.sh

# The flashing station (`nrfloader serve`) in Debian's chromium through Playwright, and its API through schemathesis,
# driving the real binary: under a minute once its tools are installed.
stage "flashing station (scripts/station-check.sh)"
bash scripts/station-check.sh

# The public API against the last release (API-BASELINE, its dumps committed in API/baselines/): seconds.
stage "API-breakage check (scripts/api-check.sh)"
bash scripts/api-check.sh

stage "fault campaign (a 100-run slice of scripts/fault-campaign.py)"
python3 scripts/fault-campaign.py --runs 100 --require-recovery 0.95

stage "fuzz corpora replay"
bash scripts/fuzz.sh replay

stage "mutation campaign slice"
python3 scripts/mutation-campaign.py --seed 1 --packages 150 --catalogs 16

# BEGIN debian-package (issue 22): the release build, the .deb, lintian, and an install, run and purge in a clean
# Debian 12 root made by debootstrap. From a fresh clone on a busy 2-core machine: 13 minutes, 11 of them the
# release build (swift-crypto's BoringSSL in release mode) and 1 the debootstrap (cached in .build-deb/ after).
stage "Debian package (scripts/deb-check.sh)"
bash scripts/deb-check.sh
# END debian-package (issue 22)

# Every scenario twice in a row in one boot, with the release executable the Debian package stage built (the one
# users run; under TCG the debug build's per-call overhead alone costs about a fifth of the rate): about 10
# minutes on a 2-core machine (VM boot about 15 s, a round about 5 minutes under TCG).
stage "real-bluetoothd tier (scripts/vm-tier.sh: qemu VM, bluetoothd 5.66, btvirt; two rounds)"
bash scripts/vm-tier.sh --binary bin/nrfloader --rounds 2
stage "done"

# SPDX-License-Identifier: Apache-2.0
"""`python3 -m tessera info [--json] [--config FILE]`: what the `tessera`
command's `info` prints (tsr_runtime_describe), for the library this
package loads, with the command's exit status: 0 when the default device
is available, 1 when it is not, 2 when the config cannot be loaded (the
message on stderr, as `tessera: <message>`)."""
import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m tessera",
                                     description="The Tessera runtime, seen from its Python package.")
    parser.add_argument("--config", metavar="FILE", help="the runtime's config (else $TESSERA_CONFIG, else the default)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    info = commands.add_parser("info", help="plugins loaded (version, path), devices, plugins that failed and why")
    info.add_argument("--json", action="store_true", help="the same as a JSON document")
    info.add_argument("--config", metavar="FILE", dest="info_config", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    config = args.info_config or args.config
    if config:  # read when the runtime is created, on first use below
        os.environ["TESSERA_CONFIG"] = config
    from . import _C, describe
    try:
        text = describe(as_json=args.json)
    except Exception as e:  # noqa: BLE001  (a bad config or library: the command's exit 2)
        print("tessera: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0 if _C.default_device()[2] else 1  # (type, index, available)


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""configs.schema: configs/schema.json is a valid JSON Schema (draft 2020-12);
every shipped config follows it; every bad config of tests/data/configs/bad
that is JSON at all breaks it, except the few whose fault a JSON Schema
cannot see (listed below, and checked to be exactly those)."""
import glob
import json
import os
import sys

import jsonschema

# Faults outside a schema's reach: duplicate object keys vanish when the
# JSON is parsed; unique plugin names, and a communicator naming a plugin of
# the file, are relations between parts of the document.
BEYOND_THE_SCHEMA = {"duplicate_json_key.json", "duplicate_top_key.json", "duplicate_plugin_names.json",
                     "communicator_unknown_plugin.json"}


def main(source):
    schema = json.load(open(os.path.join(source, "configs", "schema.json"), encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = []

    shipped = [p for p in glob.glob(os.path.join(source, "configs", "*.json")) if not p.endswith("schema.json")]
    shipped += glob.glob(os.path.join(source, "plugins", "*", "*.json"))
    shipped += glob.glob(os.path.join(source, "tests", "data", "configs", "good", "*.json"))
    assert len(shipped) >= 5, shipped
    for path in sorted(shipped):
        errors = list(validator.iter_errors(json.load(open(path, encoding="utf-8"))))
        for e in errors:
            problems.append(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
        print(("ok      " if not errors else "INVALID ") + os.path.relpath(path, source))

    accepted = set()
    checked = 0
    for path in sorted(glob.glob(os.path.join(source, "tests", "data", "configs", "bad", "*.json"))):
        try:
            doc = json.load(open(path, encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue  # not JSON: the parser's business, not the schema's
        checked += 1
        if validator.is_valid(doc):
            accepted.add(os.path.basename(path))
    print(f"bad configs that are JSON: {checked}; accepted by the schema: {sorted(accepted)}")
    if accepted != BEYOND_THE_SCHEMA:
        problems.append(f"the schema accepts {sorted(accepted)}, expected exactly {sorted(BEYOND_THE_SCHEMA)}")
    if checked < 20:
        problems.append(f"only {checked} bad configs are JSON")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

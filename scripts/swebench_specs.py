"""Write capabench's copy of SWE-bench's environment specs (src/capabench/swe/data/swebench_specs.json).

swebench 5.x ships no environment table (its datasets name prebuilt images); the last
release that does is 4.x, whose `swebench/harness/constants/python.py` holds
MAP_REPO_VERSION_TO_SPECS_PY (python, packages, pip_packages, pre_install, install,
eval_commands, test_cmd per repository and version) and the requirement-file paths. This
reads that module, data only, from a 4.x wheel and records which wheel it came from.

    pip download --no-deps 'swebench>=4,<5' -d /tmp/w && python scripts/swebench_specs.py /tmp/w/swebench-4*.whl
"""

from __future__ import annotations

import hashlib
import json
import sys
import types
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/capabench/swe/data/swebench_specs.json"
MODULE = "swebench/harness/constants/python.py"


def main(wheel: str) -> None:
    data = Path(wheel).read_bytes()
    with zipfile.ZipFile(wheel) as zf:
        source = zf.read(MODULE).decode()
    module = types.ModuleType("swebench_constants_python")
    exec(compile(source, MODULE, "exec"), module.__dict__)  # the module imports nothing
    table = {
        "source": {
            "wheel": Path(wheel).name,
            "sha256": hashlib.sha256(data).hexdigest(),
            "module": MODULE,
        },
        "specs": module.MAP_REPO_VERSION_TO_SPECS_PY,
        "requirements_paths": module.MAP_REPO_TO_REQS_PATHS,
        "environment_yml_paths": module.MAP_REPO_TO_ENV_YML_PATHS,
    }
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {sum(len(v) for v in table['specs'].values())} specs from {Path(wheel).name}")


if __name__ == "__main__":
    main(sys.argv[1])

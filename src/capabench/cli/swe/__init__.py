"""`capabench swe ...`: the ask-or-guess arm for coding agents, one module per family of
commands: runs (list, batch, preflight, evaluate), prepare, asks (reclassify, harvest) and views
(dashboard, locate, sanity)."""

from capabench.cli.swe.app import swe_app
from capabench.cli.swe.asks import harvest_cmd, reclassify_cmd
from capabench.cli.swe.grade import evaluate_cmd
from capabench.cli.swe.prepare import prepare_cmd
from capabench.cli.swe.runs import batch_cmd, list_cmd, preflight_cmd
from capabench.cli.swe.views import dashboard_cmd, locate_cmd, sanity_cmd

# In the order `capabench swe --help` lists them.
for _name, _command in (
    ("list", list_cmd),
    ("prepare", prepare_cmd),
    ("batch", batch_cmd),
    ("evaluate", evaluate_cmd),
    ("reclassify", reclassify_cmd),
    ("harvest", harvest_cmd),
    ("dashboard", dashboard_cmd),
    ("locate", locate_cmd),
    ("sanity", sanity_cmd),
    ("preflight", preflight_cmd),
):
    swe_app.command(_name)(_command)

__all__ = ["swe_app"]

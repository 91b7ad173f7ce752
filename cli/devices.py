"""``w2v devices``: the devices ``w2v train --device`` can use here."""
import json

import click

from w2v.cuda import list_devices

from .common import one_line_errors


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@one_line_errors
def devices(as_json):
    """List the training devices: the CPU, and CUDA GPUs (or why CUDA is unusable)."""
    found = list_devices()
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    for d in found:
        if d["kind"] == "cpu":
            click.echo(f"cpu      usable    {d['cores']} cores")
        elif not d["usable"]:
            click.echo(f"cuda     unusable  {d['reason']}")
        elif d.get("simulator"):
            click.echo(f"{d['name']:<8} usable    {d['device']}")
        else:
            click.echo(f"{d['name']:<8} usable    {d['device']} (compute {d['compute_capability']}, "
                       f"{d['memory_free_mib']:,} of {d['memory_total_mib']:,} MiB free, "
                       f"{d['implementation']})")

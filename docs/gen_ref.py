"""Generate the reference pages from the code at build time (mkdocs-gen-files runs this).

- reference/cli.md: every command and option of the `confidante` command (its click tree)
- reference/http.md: every route of the HTTP API, from its OpenAPI document
- reference/settings.md: every setting, from the settings model
- reference/errors.md: every error code, from the catalogue in `confidante.errors`

Nothing here is written by hand, so the pages cannot drift from the code.
"""

from __future__ import annotations

import json
from typing import Any, cast

import mkdocs_gen_files
import typer

from confidante import Memory
from confidante.config import reference_markdown
from confidante.errors import DENIAL_LOG_CODES, ERROR_CODES, error_example
from confidante.main import app
from confidante.surfaces.http import create_api


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# --- CLI -------------------------------------------------------------------------------------


def _command_md(cmd: Any, path: list[str], out: list[str]) -> None:
    # duck-typed: typer builds its commands on its own copy of click's classes
    name = " ".join(path)
    if hasattr(cmd, "commands"):
        runs_alone = getattr(cmd, "invoke_without_command", False)  # `stats` on its own
        if len(path) > 1 and runs_alone:
            _usage_md(cmd, name, out)
        elif len(path) > 1:
            out += [f"## `{name}`", "", _cell(cmd.help or ""), ""]
        for sub_name in sorted(cmd.commands):
            _command_md(cmd.commands[sub_name], [*path, sub_name], out)
        return
    _usage_md(cmd, name, out)


def _usage_md(cmd: Any, name: str, out: list[str]) -> None:
    ctx = cmd.context_class(cmd, info_name=name)
    usage = " ".join([name, *cmd.collect_usage_pieces(ctx)])
    out += [f"## `{name}`", "", "```text", usage, "```", ""]
    out += [(cmd.help or "").strip(), ""]
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    opts = [p for p in cmd.params if p.param_type_name == "option" and not p.hidden]
    if args:
        out += ["| argument | help |", "| --- | --- |"]
        for a in args:
            label = (a.metavar or a.name or "").upper()
            out.append(f"| `{label}` | {_cell(getattr(a, 'help', '') or '')} |")
        out.append("")
    if opts:
        out += ["| option | default | help |", "| --- | --- | --- |"]
        for o in opts:
            names = ", ".join(f"`{n}`" for n in o.opts + o.secondary_opts)
            default = "" if o.default in (None, False, ()) or o.is_flag else f"`{o.default}`"
            out.append(f"| {names} | {default} | {_cell(o.help or '')} |")
        out.append("")


def cli_page() -> str:
    root = typer.main.get_command(app)
    out = [
        "# CLI reference",
        "",
        "Generated from the `confidante` command itself. Every command that reads or writes "
        "memory takes the context flags (`--as ACTOR` plus one of `--dm`, `--guild G`, "
        "`--group CHAT`, `--owner-dashboard`, `--dashboard`, `--local`, `--background TASK`) "
        "and `--json`. Ids may be shortened to any unique prefix of at least 4 characters. "
        "Exit codes: 0 done; 1 an error (its code is printed); 2 a usage error; 3 refused by "
        "policy (`owner_required`, `not_a_member`, `client_mode_forbids`, ...).",
        "",
        "```text",
        "confidante [--version] [--install-completion] [--show-completion] COMMAND [ARGS]...",
        "```",
        "",
    ]
    _command_md(root, ["confidante"], out)
    return "\n".join(out)


# --- HTTP API --------------------------------------------------------------------------------


def _schema_fields(spec: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, str, str]]:
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].split("/")[-1]]
    rows = []
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type") or ", ".join(
            (p.get("type") or p.get("$ref", "").split("/")[-1]) for p in prop.get("anyOf", [])
        )
        need = "required" if name in required else f"default `{json.dumps(prop.get('default'))}`"
        rows.append((name, kind, _cell(f"{need}. {prop.get('description', '')}")))
    return rows


def http_page() -> str:
    spec = create_api(cast(Memory, None)).openapi()
    out = [
        "# HTTP API reference",
        "",
        "Generated from the API's OpenAPI document (a running server also serves it at "
        "`/openapi.json`, with Swagger UI at `/docs` and ReDoc at `/redoc`).",
        "",
        _cell(spec["info"].get("description", "")),
        "",
        'Every route answers errors as `{"error": {"code", "message"}}`; the codes are listed '
        "on the [errors page](errors.md).",
        "",
    ]
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            out += [f"## `{method.upper()} {path}`", "", f"**{op.get('summary', '')}**", ""]
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                out += ["| body field | type | notes |", "| --- | --- | --- |"]
                for name, kind, notes in _schema_fields(spec, body["schema"]):
                    out.append(f"| `{name}` | {kind} | {notes} |")
                out.append("")
            ok = [c for c in op.get("responses", {}) if c.startswith("2")]
            for code in ok:
                content = op["responses"][code].get("content", {}).get("application/json", {})
                schema = content.get("schema", {})
                fields = _schema_fields(spec, schema) if schema else []
                if fields:
                    names = ", ".join(f"`{n}`" for n, _, _ in fields)
                    out += [f"Answers `{code}` with {names}.", ""]
            errors = [c for c in op.get("responses", {}) if c[0] in "45"]
            if errors:
                out += ["Errors: " + ", ".join(f"`{c}`" for c in errors) + ".", ""]
    return "\n".join(out)


# --- settings and errors -----------------------------------------------------------------------


def settings_page() -> str:
    return "\n".join(
        [
            "# Settings reference",
            "",
            "Generated from the settings model. Each setting is an environment variable "
            "`CONFIDANTE_<NAME>`, or a key in the TOML file named by `CONFIDANTE_CONFIG` "
            "(default `~/.config/confidante/config.toml`). In that file a key may be written "
            "`owner_ids`, `owner-ids` or `CONFIDANTE_OWNER_IDS`; an unknown key is an error. "
            "The environment wins over the file. `confidante config --show` prints what is in "
            "effect (secrets masked); `confidante config --reference` prints this page.",
            "",
            "```toml",
            "# ~/.config/confidante/config.toml",
            'owner_ids = ["discord:123456789012345678", "telegram:7"]',
            'db = "/srv/confidante/memory.db"',
            "ttl_days_by_scope = { owner = 365, user = 90 }",
            'privacy_mode = "refuse"',
            "```",
            "",
            reference_markdown(),
        ]
    )


def errors_page() -> str:
    out = [
        "# Error codes",
        "",
        "Generated from `confidante.errors.ERROR_CODES`. Every error a caller can meet has a "
        "stable `code`: the library raises a subclass of `ConfidanteError` carrying it, the "
        'CLI prints `error CODE: message` (or `{"error": ...}` with `--json`) and exits '
        "non-zero (2 for a policy refusal), and the API answers with the status below and "
        "this body. Messages name categories and codes, never a submitted value.",
        "",
        "| code | status | when |",
        "| --- | --- | --- |",
    ]
    for code, doc in ERROR_CODES.items():
        out.append(f"| [`{code}`](#{code}) | {doc.status} | {_cell(doc.when)} |")
    out.append("")
    for code, doc in ERROR_CODES.items():
        body = json.dumps(error_example(code), indent=2)
        out += [f"## `{code}`", "", f"{doc.when} (HTTP {doc.status}).", "", "```json", body, "```", ""]
    out += ["## Codes in the denial log only", ""]
    for code, when in DENIAL_LOG_CODES.items():
        out.append(f"- `{code}`: {when}")
    out.append("")
    return "\n".join(out)


for name, render in (
    ("cli", cli_page),
    ("http", http_page),
    ("settings", settings_page),
    ("errors", errors_page),
):
    with mkdocs_gen_files.open(f"reference/{name}.md", "w") as f:
        f.write(render())

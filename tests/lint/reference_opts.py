#!/usr/bin/env python3
"""docs/reference.md's option tables and --help texts, generated from the C
option tables and checked against them (issue 31).

The tables are read through tests/lint/opt_dump (built by tests/lint/meson.build),
which prints them as JSON: sysbench's schema with the tpcc family's rows
(proto/opts/pr_opts.c, families/tpcc/proto/pr_tc_opts.h), stampede's own
options (coordinator/cli/co_args.c), and the --help texts of `stampede`,
`stampede WORKLOAD help` (coordinator/cli/co_usage.c) and `stampede-agent`
(agent/control/ag_config.c).

In the reference, a generated block sits between two marker lines:

  <!-- generated: KIND NAME (tests/lint/reference_opts.py) -->
  ...
  <!-- end generated -->

and its content is rewritten by --update; everything outside the markers is
hand-written and left alone. A checked block

  <!-- checked: agent keys (tests/lint/reference_opts.py) -->
  ...
  <!-- end checked -->

is hand-written (a table whose first column is richer than the help text),
but its first column must name exactly the agent's options.

  reference_opts.py --update --dump BUILD/tests/lint/opt_dump [--doc FILE]
  reference_opts.py --check  --dump BUILD/tests/lint/opt_dump [--doc FILE]
  reference_opts.py --self-test --dump BUILD/tests/lint/opt_dump [--doc FILE]

--check exits 1 and names each option whose row differs, is missing or is
extra, and each block that is missing or out of date; --self-test puts
drift into a copy of the reference and checks that --check reports it.
Python standard library only.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOL = "tests/lint/reference_opts.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DOC = os.path.join(ROOT, "docs", "reference.md")
DEFAULT_DUMP = os.path.join(ROOT, "build", "tests", "lint", "opt_dump")

BEGIN_RE = re.compile(r"^<!-- (generated|checked): ([a-z-]+) ([a-z-]+) \(" + re.escape(TOOL) + r"\) -->$")
END = {"generated": "<!-- end generated -->", "checked": "<!-- end checked -->"}

# Every block the reference must hold: (kind, what, name).
GENERATED = [
    ("usage", "stampede"),
    ("options", "general"),
    ("options", "mysql"),
    ("options", "workloads"),
    ("options", "stampede"),
    ("options", "tpcc"),
    ("usage", "stampede-agent"),
]
CHECKED = [("agent", "keys")]

# The agent's --help names that are not config-file keys.
AGENT_NOT_KEYS = {"help", "version", "config"}


class Problem(Exception):
    pass


# ---- the tables -------------------------------------------------------------


def load_dump(dump):
    """The tables: run the opt_dump program, or read a JSON file (self-test)."""
    if dump.endswith(".json"):
        with open(dump, encoding="utf-8") as f:
            return json.load(f)
    try:
        out = subprocess.run([dump], check=True, stdout=subprocess.PIPE).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise Problem(f"cannot run {dump} ({e}); build it first: ninja -C BUILD tests/lint/opt_dump")
    return json.loads(out.decode("utf-8"))


def help_lines(text):
    """{name: rest of the line} for each '  --name...' line of a help text;
    an option's continuation lines (deeper indent, no '--') are joined."""
    out = {}
    last = None
    for line in text.split("\n"):
        m = re.match(r"^  --([a-z0-9_-]+)(\S*)(?:\s+(.*))?$", line)
        if m:
            last = m.group(1)
            out.setdefault(last, (m.group(2), (m.group(3) or "").strip()))
        elif last and line.startswith("    ") and line.strip():
            arg, rest = out[last]
            out[last] = (arg, rest + " " + line.strip())
        else:
            last = None
    return out


def marked_help(data, opt):
    """What `stampede --help` / `stampede WORKLOAD help` prints for a schema
    option (the help text with stampede's marks, default left out)."""
    texts = [data["usage"]] + [data["workload_usage"][w] for w in opt["workloads"]]
    for text in texts:
        line = help_lines(text).get(opt["name"])
        if line is None:
            continue
        rest = line[1]
        if opt["default"] is not None:
            suffix = f" [{opt['default']}]"
            if not rest.endswith(suffix):
                raise Problem(f"--{opt['name']}: the help line does not end with its default {suffix!r}")
            rest = rest[: -len(suffix)]
        return rest
    raise Problem(f"--{opt['name']} is in the schema (pr_opts_schema) but no --help text prints it")


def agent_options(data):
    """The agent's option names, from `stampede-agent --help`."""
    names = []
    for line in data["agent_usage"].split("\n"):
        for m in re.finditer(r"(?:^  |, )--([a-z0-9-]+)", line):
            names.append(m.group(1))
    return names


def md(text):
    """Text for a markdown table cell."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def code(text):
    return "`" + text.replace("|", "\\|") + "`"


def default_cell(d):
    if d is None:
        return "none"
    if d == "":
        return "empty"
    return code(d)


def workloads_cell(data, wls):
    sb = data["workloads"][: data["sysbench_workloads"]]
    if set(wls) <= set(sb) and len(wls) > len(sb) // 2:
        rest = [w for w in sb if w not in wls]
        if not rest:
            return "every sysbench workload"
        return "every sysbench workload but " + ", ".join(code(w) for w in rest)
    return ", ".join(code(w) for w in wls)


def table(header, rows):
    """rows: [(option name, [cells])]; the name keys the row for --check."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, cells in rows:
        out.append("| " + " | ".join(cells) + " |")
    return out


def schema_rows(data, pick, with_workloads):
    rows = []
    for o in data["schema"]:
        if not pick(o):
            continue
        cells = [code("--" + o["name"]), o["type"], default_cell(o["default"]), md(marked_help(data, o))]
        if with_workloads:
            cells.append(workloads_cell(data, o["workloads"]))
        rows.append((o["name"], cells))
    return rows


def is_tpcc(o):
    return o["group"] == "script" and "tpcc" in o["workloads"]


def generated(data, what, name):
    """The lines of one generated block, and the option names of its rows."""
    head = ["option", "type", "default", "meaning"]
    if what == "usage":
        text = data["usage"] if name == "stampede" else data["agent_usage"]
        return ["```"] + text.rstrip("\n").split("\n") + ["```"], []
    if name == "general":
        rows = schema_rows(data, lambda o: o["group"] == "general", False)
    elif name == "mysql":
        rows = schema_rows(data, lambda o: o["group"] == "mysql", False)
    elif name == "workloads":
        rows = schema_rows(data, lambda o: o["group"] == "script" and not is_tpcc(o), True)
        head = head + ["workloads"]
    elif name == "tpcc":
        rows = schema_rows(data, is_tpcc, False)
    elif name == "stampede":
        head = ["option", "default", "meaning"]
        rows = [(o["name"], [code("--" + o["name"] + o["arg"]), default_cell(o["default"]), md(o["help"])])
                for o in data["own"]]
    else:
        raise Problem(f"no generated block named '{what} {name}'")
    return table(head, rows), [r[0] for r in rows]


def all_options(data):
    """Every option of the coordinator's tables, as (table, name); the
    agent's are agent_options()."""
    out = [("pr_opts_schema", o["name"]) for o in data["schema"]]
    out += [("stampede's own options (co_args.c)", o["name"]) for o in data["own"]]
    return out


# ---- the document -----------------------------------------------------------


def split_blocks(lines):
    """[(kind, what, name, begin index, end index)] of the marked blocks."""
    blocks = []
    i = 0
    while i < len(lines):
        m = BEGIN_RE.match(lines[i])
        if m:
            kind, what, name = m.groups()
            for j in range(i + 1, len(lines)):
                if lines[j] == END[kind]:
                    break
                if BEGIN_RE.match(lines[j]):
                    raise Problem(f"line {i + 1}: block '{what} {name}' has no {END[kind]} before the next block")
            else:
                raise Problem(f"line {i + 1}: block '{what} {name}' has no {END[kind]}")
            blocks.append((kind, what, name, i, j))
            i = j
        elif lines[i].startswith("<!-- generated") or lines[i].startswith("<!-- checked"):
            raise Problem(f"line {i + 1}: a marker this tool does not read: {lines[i]}")
        i += 1
    return blocks


def row_key(line):
    """The option a table row documents: its first cell's `--name` (any
    `=VALUE` after it left out) or, in the agent's key table, `name`."""
    m = re.match(r"^\| `((?:--)?[a-z0-9_-]+)[^`]*` \|", line)
    return m.group(1) if m else None


def updated(text, data):
    """The document with every generated block rewritten."""
    lines = text.split("\n")
    out = []
    pos = 0
    for kind, what, name, b, e in split_blocks(lines):
        out += lines[pos : b + 1]
        if kind == "generated":
            out += generated(data, what, name)[0]
        else:
            out += lines[b + 1 : e]
        pos = e
    out += lines[pos:]
    return "\n".join(out)


def compare_rows(where, have, want):
    """Problems between a block's lines in the doc and the generated ones."""
    probs = []
    hrows = {row_key(l): l for l in have if row_key(l)}
    wrows = {row_key(l): l for l in want if row_key(l)}
    for k, l in wrows.items():
        if k not in hrows:
            probs.append(f"{where}: option {k} is missing from the reference")
        elif hrows[k] != l:
            probs.append(f"{where}: option {k} differs from the tables:\n      doc:    {hrows[k]}\n      tables: {l}")
    for k in hrows:
        if k not in wrows:
            probs.append(f"{where}: option {k} is in the reference but not in the tables")
    if not probs:
        for n, (h, w) in enumerate(zip(have + [""] * len(want), want + [""] * len(have))):
            if h != w:
                probs.append(f"{where}: line {n + 1} of the block differs:\n      doc:    {h}\n      tables: {w}")
                break
    return probs


def check(text, data):
    """Every problem of the document against the tables (an empty list: none)."""
    lines = text.split("\n")
    probs = []
    try:
        blocks = split_blocks(lines)
    except Problem as e:
        return [str(e)]
    seen = {}
    for kind, what, name, b, e in blocks:
        where = f"block '{what} {name}' (line {b + 1})"
        if (what, name) in seen:
            probs.append(f"{where}: a second copy (the first is at line {seen[(what, name)] + 1}); keep one")
            continue
        seen[(what, name)] = b
        have = lines[b + 1 : e]
        if kind == "checked":
            if (what, name) not in CHECKED:
                probs.append(f"{where}: no checked block of that name; known: agent keys")
                continue
            names = [row_key(l) for l in have if row_key(l)]
            want = [n for n in agent_options(data) if n not in AGENT_NOT_KEYS]
            for n in sorted(set(names)):
                if names.count(n) > 1:
                    probs.append(f"{where}: key '{n}' has {names.count(n)} rows; keep one")
            for n in want:
                if n not in names:
                    probs.append(f"{where}: agent option --{n} (stampede-agent --help) has no row; "
                                 "add one by hand (this block is hand-written)")
            for n in names:
                if n not in want:
                    probs.append(f"{where}: key '{n}' is not an option of stampede-agent --help; remove its row")
            continue
        try:
            want_lines = generated(data, what, name)[0]
        except Problem as e:
            probs.append(f"{where}: {e}")
            continue
        if have != want_lines:
            probs += compare_rows(where, have, want_lines)
    for what, name in GENERATED:
        if (what, name) not in seen:
            probs.append(f"block 'generated: {what} {name}' is missing: add its two marker lines "
                         f"(<!-- generated: {what} {name} ({TOOL}) --> and <!-- end generated -->)")
    for what, name in CHECKED:
        if (what, name) not in seen:
            probs.append(f"block 'checked: {what} {name}' is missing")
    # every option once: one table row whose first cell names it (the agent's
    # keys: in the checked block, above)
    count = {}
    for l in lines:
        k = row_key(l)
        if k:
            count[k] = count.get(k, 0) + 1
    for tab, n in all_options(data):
        c = count.get("--" + n, 0)
        if c != 1:
            probs.append(f"option --{n} ({tab}) is the first cell of {c} table rows in the reference, not 1")
    return probs


def fix_hint(args):
    return (f"fix: python3 {TOOL} --update --dump {args.dump}" + (f" --doc {args.doc}" if args.doc != DEFAULT_DOC else "")
            + " (then review and commit docs/reference.md; rows of a checked block are edited by hand)")


def run_check(args, data):
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    probs = check(text, data)
    if probs:
        print(f"{args.doc} and the option tables differ ({len(probs)} problems):")
        for p in probs:
            print("  - " + p)
        print(fix_hint(args))
        return 1
    n = len(all_options(data)) + len([k for k in agent_options(data) if k not in AGENT_NOT_KEYS])
    print(f"{args.doc}: {n} options, each documented once; every generated block matches the tables")
    return 0


def run_update(args, data):
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    new = updated(text, data)
    if new != text:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"{args.doc}: generated blocks rewritten")
    else:
        print(f"{args.doc}: already up to date")
    probs = check(new, data)
    for p in probs:
        print("  - " + p)
    return 1 if probs else 0


# ---- self-test --------------------------------------------------------------


def self_test(args, data):
    """Drift put into a copy of the reference must fail --check, naming it."""
    with open(args.doc, encoding="utf-8") as f:
        good = updated(f.read(), data)
    fails = []

    def expect(label, text, dat, needle):
        probs = check(text, dat)
        if not any(needle in p for p in probs):
            fails.append(f"{label}: --check did not report {needle!r}; it said {probs}")

    if check(good, data):
        fails.append(f"the updated copy does not pass: {check(good, data)}")
    o = next(o for o in data["schema"] if o["group"] == "general" and o["default"])
    row = next(l for l in good.split("\n") if row_key(l) == "--" + o["name"])
    # a default changed in the doc
    bad = row.replace(code(o["default"]), code(o["default"] + "0"), 1)
    expect("changed default", good.replace(row, bad), data, f"option --{o['name']} differs")
    # a row deleted
    expect("deleted row", good.replace(row + "\n", ""), data, f"option --{o['name']} is missing")
    # the same option documented twice (a hand-written row outside the blocks)
    expect("duplicate row", good + "\n" + row + "\n", data, f"option --{o['name']} (pr_opts_schema) is the first cell of 2")
    # a new option in each table, the doc not updated
    for group, label in (("mysql", "mysql"), ("script", "tpcc")):
        dat = json.loads(json.dumps(data))
        new = {"name": "zz-new-opt", "type": "int", "group": group, "default": "7", "help": "a new option",
               "alias_of": None, "workloads": ["tpcc"] if group == "script" else []}
        dat["schema"].append(new)
        if group == "script":
            dat["workload_usage"]["tpcc"] += "  --zz-new-opt=N a new option [7]\n"
        else:
            dat["usage"] += "  --zz-new-opt=N a new option [7]\n"
        expect(f"new {label} option", good, dat, "option --zz-new-opt is missing from the reference")
    dat = json.loads(json.dumps(data))
    dat["own"][0]["help"] += " (changed)"
    expect("own option help changed", good, dat, f"option --{dat['own'][0]['name']} differs")
    # an agent option added to --help, and a key row removed from the checked table
    dat = json.loads(json.dumps(data))
    dat["agent_usage"] = dat["agent_usage"].replace("  --help,", "  --zz-agent-key=N  new\n  --help,")
    expect("new agent option", updated(good, dat), dat, "agent option --zz-agent-key")
    key = [n for n in agent_options(data) if n not in AGENT_NOT_KEYS][0]
    krow = next(l for l in good.split("\n") if l.startswith(f"| `{key}` |"))
    expect("deleted agent key", good.replace(krow + "\n", ""), data, f"agent option --{key}")
    # the --help text changed
    dat = json.loads(json.dumps(data))
    dat["usage"] = dat["usage"].replace("Commands:", "Commandz:")
    expect("usage text", good, dat, "block 'usage stampede'")
    # a block's markers removed
    expect("missing block", good.replace(f"<!-- generated: options mysql ({TOOL}) -->", ""), data,
           "block 'generated: options mysql' is missing")
    # the command line itself: exit status 1 on drift, 0 after --update
    with tempfile.TemporaryDirectory() as tmp:
        doc = os.path.join(tmp, "reference.md")
        dump = os.path.join(tmp, "dump.json")
        with open(dump, "w", encoding="utf-8") as f:
            json.dump(data, f)
        with open(doc, "w", encoding="utf-8") as f:
            f.write(good.replace(row, bad))
        me = [sys.executable, os.path.abspath(__file__), "--dump", dump, "--doc", doc]
        r = subprocess.run(me + ["--check"], stdout=subprocess.PIPE, universal_newlines=True)
        if r.returncode != 1 or f"--{o['name']}" not in r.stdout or "--update" not in r.stdout:
            fails.append(f"--check on a drifted copy: exit {r.returncode}, output {r.stdout!r}")
        r = subprocess.run(me + ["--update"], stdout=subprocess.PIPE, universal_newlines=True)
        r2 = subprocess.run(me + ["--check"], stdout=subprocess.PIPE, universal_newlines=True)
        if r.returncode != 0 or r2.returncode != 0:
            fails.append(f"--update then --check: exit {r.returncode}, {r2.returncode}: {r.stdout} {r2.stdout}")
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("self-test: every kind of drift put into a copy of the reference fails --check")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 when the reference differs from the tables")
    mode.add_argument("--update", action="store_true", help="rewrite the generated blocks")
    mode.add_argument("--self-test", action="store_true", help="check that --check fails on drift")
    ap.add_argument("--dump", default=DEFAULT_DUMP, help="the built opt_dump program (or its JSON output)")
    ap.add_argument("--doc", default=DEFAULT_DOC, help="the reference (default: docs/reference.md)")
    args = ap.parse_args()
    try:
        data = load_dump(args.dump)
        if args.check:
            return run_check(args, data)
        if args.update:
            return run_update(args, data)
        return self_test(args, data)
    except Problem as e:
        print(f"{TOOL}: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
